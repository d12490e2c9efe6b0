//! Choosing read probes from the listed commands, and reporting the rest.

use serde_json::{json, Value};

use super::classify::{classify, classify_command, Class};
use super::commands::{subcommands, usage_subcommands, HelpEntry};
use super::usage::requires_argument;
use crate::init::tool::Tool;
use crate::init::{Body, Warning};

/// What the walk over the commands found.
#[derive(Debug, Default)]
pub(super) struct Found {
    /// Read probes to try, in order.
    pub(super) candidates: Vec<Vec<String>>,
    /// Names whose help was not asked for: they read as changing state.
    mutating: Vec<String>,
    /// Names that say nothing of side effects and list no read subcommand.
    others: Vec<String>,
    /// Names that say nothing of side effects and gave no help, with why.
    unhelpful: Vec<(String, String)>,
}

impl Found {
    /// One command of the root listing: itself, and its read subcommands.
    pub(super) fn command(
        &mut self,
        tool: &mut dyn Tool,
        program: &str,
        entry: &HelpEntry,
        body: &mut Body,
    ) {
        let name = &entry.name;
        // The same classification as `conform check`'s (cargo's aliases, a
        // group's verb, the summary's words).
        let path = if entry.path.is_empty() {
            vec![name.clone()]
        } else {
            entry.path.clone()
        };
        let class = classify_command(&path, &entry.summary);
        match class {
            Class::Framework => return,
            Class::Destructive => {
                // Its help is not even run: a tool that ignores --help would delete.
                body.warnings.push(Warning::destructive(name));
                return;
            }
            Class::Mutating => {
                self.mutating.push(name.clone());
                return;
            }
            Class::Read | Class::Other => {}
        }
        let read = class == Class::Read;
        if entry.requires_argument {
            if read {
                body.warnings.push(Warning::skipped(
                    name,
                    "its listing shows a required argument",
                ));
            } else {
                self.others.push(name.clone());
            }
            return;
        }
        let text = match tool.help(&path, program) {
            Ok(text) => text,
            Err(why) if read => {
                body.warnings.push(Warning::help_dropped(name, &why));
                return;
            }
            Err(why) => {
                self.unhelpful.push((name.clone(), why));
                return;
            }
        };
        let subs = self.subcommands(program, name, &text, body);
        if !read {
            if !subs {
                self.others.push(name.clone());
            }
            return;
        }
        // cleo's `cache list` is run as its two words, and its usage names `list`.
        let last = path.last().unwrap_or(name);
        match requires_argument(&text, last, program) {
            Some(false) => self.candidates.push(path.clone()),
            // A group such as `config`: its subcommands were the point.
            Some(true) if subs => {}
            Some(true) => body.warnings.push(Warning::skipped(
                name,
                "its usage line shows a required argument; add the probe by hand with a value",
            )),
            None => body.warnings.push(Warning::skipped(
                name,
                "its help has no usage line naming it, so required arguments cannot be ruled out",
            )),
        }
    }

    /// The read subcommands of `name` (one level down), added as candidates; whether
    /// there were any.
    fn subcommands(&mut self, program: &str, name: &str, text: &str, body: &mut Body) -> bool {
        let listed = subcommands(text, &[program, name]);
        let spelled = usage_subcommands(text, name, program);
        let mut seen: Vec<&str> = Vec::new();
        for sub in listed.iter().chain(&spelled) {
            // Listed and spelled out in a usage line too: once is enough.
            if sub.name == name
                || classify(&sub.name) != Class::Read
                || seen.contains(&sub.name.as_str())
            {
                continue;
            }
            seen.push(&sub.name);
            let argv = vec![name.to_string(), sub.name.clone()];
            let shown = argv.join(" ");
            if sub.requires_argument {
                body.warnings.push(Warning::skipped(
                    &shown,
                    "its usage shows a required argument; add the probe by hand with a value",
                ));
                continue;
            }
            // A listing or usage line that shows no argument is taken at its word:
            // the trial, which runs the command as a help call that it ignored
            // would, leaves it out if it wants one.
            self.candidates.push(argv);
        }
        !seen.is_empty()
    }

    pub(super) fn report(&self, body: &mut Body) {
        if !self.mutating.is_empty() {
            body.warnings.push(Warning::new(
                "COMMANDS_NOT_CALLED",
                format!(
                    "not probed, and their help not asked for, as their names say they change state or reach out: {}; a probe runs several times, so add one by hand only for a command you know to be side-effect free",
                    self.mutating.join(", ")
                ),
                json!({ "commands": self.mutating }),
            ));
        }
        if !self.unhelpful.is_empty() {
            let names: Vec<&str> = self.unhelpful.iter().map(|(n, _)| n.as_str()).collect();
            let reasons: serde_json::Map<String, Value> = self
                .unhelpful
                .iter()
                .map(|(n, why)| (n.clone(), json!(why)))
                .collect();
            body.warnings.push(Warning::new(
                "HELP_DROPPED",
                format!(
                    "not probed, as their help calls printed no usage line (the reasons are in this warning's context): {}",
                    names.join(", ")
                ),
                json!({ "commands": names, "reasons": reasons }),
            ));
        }
        if !self.others.is_empty() {
            body.warnings.push(Warning::new(
                "COMMANDS_NOT_CLASSIFIED",
                format!(
                    "not probed, as their names say nothing of side effects: {}; add read probes for the side-effect-free ones by hand",
                    self.others.join(", ")
                ),
                json!({ "commands": self.others }),
            ));
        }
    }
}
