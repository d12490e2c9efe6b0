//! Hand-written, interspersed argument parsing (REQ-F-067, REQ-F-079).
//!
//! Global options are accepted in any position; a command's local options anywhere
//! after its command path, before or after positionals; `--` ends option parsing.
//! Every input error is an exit-2 `CliError` with phase validation (REQ-F-002).

use std::collections::BTreeMap;
use std::iter::Peekable;

use serde_json::json;

use crate::defect::{self, Defect, Faults};
use crate::error::CliError;
use crate::spec::{self, Accepts, Command, Flag, Kind, Positional};

/// The parsed command line. Always carries the deepest command reached, even when
/// parsing failed, so `--help` and error messages can name it.
#[derive(Debug)]
pub struct Parsed {
    pub command: &'static Command,
    /// Flag name -> value; switches hold "true". Values are already validated.
    flags: BTreeMap<&'static str, String>,
    pub positionals: Vec<String>,
    /// `--help` or `-h` appeared before any `--`.
    pub help: bool,
    pub error: Option<CliError>,
}

impl Parsed {
    pub fn switch(&self, name: &str) -> bool {
        self.flags.contains_key(name)
    }

    pub fn text(&self, name: &str) -> Option<&str> {
        self.flags.get(name).map(String::as_str)
    }

    /// An integer flag; its range was checked while parsing.
    pub fn int(&self, name: &str) -> Option<i64> {
        self.text(name).and_then(|value| value.parse().ok())
    }

    pub fn positional(&self, index: usize) -> Option<&str> {
        self.positionals.get(index).map(String::as_str)
    }
}

pub fn parse(args: &[String], faults: Faults) -> Parsed {
    // Help wins over every other error, wherever it appears (REQ-F-048).
    let help = args
        .iter()
        .take_while(|arg| *arg != "--")
        .any(|arg| arg == "--help" || arg == "-h");
    let mut parser = Parser {
        command: &spec::ROOT,
        flags: BTreeMap::new(),
        positionals: Vec::new(),
        options_done: false,
        faults,
    };
    let error = parser.run(args).and_then(|()| parser.finish()).err();
    Parsed {
        command: parser.command,
        flags: parser.flags,
        positionals: parser.positionals,
        help,
        error,
    }
}

struct Parser {
    command: &'static Command,
    flags: BTreeMap<&'static str, String>,
    positionals: Vec<String>,
    /// Set by `--`, or by the option-after-positional defect.
    options_done: bool,
    faults: Faults,
}

impl Parser {
    fn run(&mut self, args: &[String]) -> Result<(), CliError> {
        let mut args = args.iter().peekable();
        while let Some(arg) = args.next() {
            if self.options_done {
                self.operand(arg)?;
            } else if arg == "--" {
                self.options_done = true;
            } else if let Some(body) = arg.strip_prefix("--") {
                let (name, inline) = match body.split_once('=') {
                    Some((name, value)) => (name, Some(value)),
                    None => (body, None),
                };
                let flag = self.long(name).ok_or_else(|| self.unknown_flag(arg))?;
                let value = self.value(flag, arg, inline, &mut args)?;
                self.set(flag, value)?;
            } else if arg.len() > 1 && arg.starts_with('-') {
                let flag = self.short(arg).ok_or_else(|| self.unknown_flag(arg))?;
                let value = self.value(flag, arg, None, &mut args)?;
                self.set(flag, value)?;
            } else {
                self.operand(arg)?;
            }
        }
        Ok(())
    }

    /// A word that is not an option: the next command-path word, or a positional.
    fn operand(&mut self, arg: &str) -> Result<(), CliError> {
        if !self.command.is_group() {
            self.positionals.push(arg.to_owned());
            if self.faults.on(Defect::OptionAfterPositionalIgnored) {
                self.options_done = true;
            }
            return Ok(());
        }
        match self.command.child(arg) {
            Some(child) => {
                self.command = child;
                Ok(())
            }
            None => Err(self.unknown_command(arg)),
        }
    }

    fn long(&self, name: &str) -> Option<&'static Flag> {
        let global = spec::global_flag(name).filter(|flag| {
            !(self.faults.on(Defect::GlobalFlagBeforeCommandOnly)
                && flag.name == "format"
                && !self.command.path.is_empty())
        });
        let api_key = (self.faults.on(Defect::ApiKeyFlagOnly)
            && self.command.key == defect::API_KEY_COMMAND
            && name == defect::API_KEY_FLAG.name)
            .then_some(&defect::API_KEY_FLAG);
        global.or_else(|| self.command.local_flag(name)).or(api_key)
    }

    fn short(&self, arg: &str) -> Option<&'static Flag> {
        let mut chars = arg.chars().skip(1);
        let (Some(letter), None) = (chars.next(), chars.next()) else {
            return None;
        };
        spec::GLOBAL_FLAGS
            .iter()
            .chain(self.command.flags)
            .find(|flag| flag.short == Some(letter))
    }

    /// Take and check the value of `flag`, from `--name=value` or the next word.
    fn value<'a>(
        &self,
        flag: &Flag,
        arg: &str,
        inline: Option<&str>,
        rest: &mut Peekable<impl Iterator<Item = &'a String>>,
    ) -> Result<String, CliError> {
        if flag.kind == Kind::Bool {
            return match inline {
                None => Ok("true".to_owned()),
                Some(_) => Err(CliError::usage(
                    "UNEXPECTED_VALUE",
                    format!("--{} takes no value", flag.name),
                )
                .fix(format!("Pass --{} without =VALUE", flag.name))
                .context(json!({ "flag": format!("--{}", flag.name) }))),
            };
        }
        let value = match inline {
            Some(value) => value.to_owned(),
            // A following option is never taken as a value: `--cursor --stream`
            // is a missing cursor, not a cursor named "--stream".
            None => match rest.next_if(|next| !next.starts_with("--")) {
                Some(value) => value.clone(),
                None => {
                    return Err(CliError::usage(
                        "MISSING_VALUE",
                        format!("{arg} needs a value ({})", flag.value_name),
                    )
                    .fix(format!("Pass --{} {}", flag.name, flag.value_name))
                    .context(json!({ "flag": format!("--{}", flag.name) })))
                }
            },
        };
        check_value(flag, &value)?;
        Ok(value)
    }

    fn set(&mut self, flag: &'static Flag, value: String) -> Result<(), CliError> {
        match self.flags.get(flag.name) {
            // Repeating a flag with the same value is harmless; a different value is
            // ambiguous, so it is refused rather than resolved by position.
            Some(previous)
                if *previous != value && !self.faults.on(Defect::DuplicateFlagLastWins) =>
            {
                Err(CliError::usage(
                    "DUPLICATE_FLAG",
                    format!(
                        "--{} was given twice with different values ({previous}, {value})",
                        flag.name
                    ),
                )
                .fix(format!("Pass --{} once", flag.name))
                .context(json!({
                    "flag": format!("--{}", flag.name),
                    "values": [previous, value],
                })))
            }
            _ => {
                self.flags.insert(flag.name, value);
                Ok(())
            }
        }
    }

    /// Checks that need the whole command line: arity and required flags.
    fn finish(&mut self) -> Result<(), CliError> {
        let command = self.command;
        if command.is_group() {
            return Ok(());
        }
        if self.positionals.len() > command.positionals.len() {
            if self.faults.on(Defect::OptionAfterPositionalIgnored) {
                self.positionals.truncate(command.positionals.len());
            } else {
                let extra = &self.positionals[command.positionals.len()];
                return Err(CliError::usage(
                    "UNEXPECTED_ARGUMENT",
                    format!("'{}' takes no argument '{extra}'", command.display()),
                )
                .fix("Remove the extra argument")
                .suggest(format!("democli {} --help", command.display()))
                .context(json!({
                    "command": command.display(),
                    "argument": extra,
                    "accepts": command.positionals.iter().map(|p| p.name).collect::<Vec<_>>(),
                })));
            }
        }
        if let Some(missing) = command
            .positionals
            .iter()
            .skip(self.positionals.len())
            .find(|positional| positional.required)
        {
            return Err(CliError::usage(
                "MISSING_ARGUMENT",
                format!(
                    "'{}' needs the argument {}",
                    command.display(),
                    missing.name.to_uppercase()
                ),
            )
            .fix(format!("Pass {}", missing.name.to_uppercase()))
            .suggest(format!("democli {} --help", command.display()))
            .context(json!({ "command": command.display(), "argument": missing.name })));
        }
        // The env-substring-match defect lets any text through to a lookup.
        let unchecked = self.faults.on(Defect::EnvSubstringMatch);
        for (positional, value) in command.positionals.iter().zip(&self.positionals) {
            if self.faults.on(Defect::PositionalThroughShell) {
                log_through_shell(value);
            }
            if !unchecked && !positional.accepts.allows(value) {
                return Err(invalid_positional(command, positional, value));
            }
        }
        if let Some(missing) = command
            .flags
            .iter()
            .find(|flag| flag.required && !self.flags.contains_key(flag.name))
        {
            return Err(CliError::usage(
                "MISSING_FLAG",
                format!(
                    "'{}' needs --{} {}",
                    command.display(),
                    missing.name,
                    missing.value_name
                ),
            )
            .fix(format!("Pass --{} {}", missing.name, missing.value_name))
            .suggest(format!("democli {} --help", command.display()))
            .context(
                json!({ "command": command.display(), "flag": format!("--{}", missing.name) }),
            ));
        }
        Ok(())
    }

    fn unknown_flag(&self, arg: &str) -> CliError {
        let command = self.command;
        let mut accepted: Vec<String> = command
            .flags
            .iter()
            .chain(spec::GLOBAL_FLAGS)
            .map(|flag| format!("--{}", flag.name))
            .collect();
        accepted.sort_unstable();
        let shown = if command.path.is_empty() {
            "democli".to_owned()
        } else {
            format!("democli {}", command.display())
        };
        CliError::usage("UNKNOWN_FLAG", format!("unknown flag {arg} for '{shown}'"))
            .fix("Remove the flag or correct its name")
            .suggest(format!("{shown} --help lists the accepted flags"))
            .context(json!({ "flag": arg, "command": command.display(), "accepted": accepted }))
    }

    fn unknown_command(&self, word: &str) -> CliError {
        let parent = self.command;
        let known: Vec<&str> = parent
            .subcommands
            .iter()
            .filter_map(|key| spec::find(key))
            .filter_map(|child| child.path.last().copied())
            .collect();
        let shown = if parent.path.is_empty() {
            "democli".to_owned()
        } else {
            format!("democli {}", parent.display())
        };
        CliError::usage(
            "UNKNOWN_COMMAND",
            format!("'{word}' is not a command of '{shown}'"),
        )
        .fix(format!("Use one of: {}", known.join(", ")))
        .suggest("democli manifest lists every command")
        .context(json!({ "command": word, "parent": parent.display(), "known": known }))
    }
}

/// A positional value outside what the positional accepts: refused before it can reach
/// a lookup or a path (REQ-F-045).
fn invalid_positional(command: &Command, positional: &Positional, value: &str) -> CliError {
    let name = positional.name.to_uppercase();
    let (expected, rule) = match positional.accepts {
        Accepts::OneOf(values) => (format!("one of {}", values.join(", ")), json!(values)),
        Accepts::Pattern { pattern, .. } => (format!("a value matching {pattern}"), json!(pattern)),
    };
    CliError::usage(
        "INVALID_ARGUMENT",
        format!("'{value}' is not a valid {name}: expected {expected}"),
    )
    .fix(format!("Pass {name} as {expected}"))
    .suggest(format!("democli {} --help", command.display()))
    .context(json!({
        "command": command.display(),
        "argument": positional.name,
        "value": value,
        "accepts": rule,
    }))
}

fn check_value(flag: &Flag, value: &str) -> Result<(), CliError> {
    let invalid = |expected: String| {
        CliError::usage(
            "INVALID_VALUE",
            format!("--{} {value}: expected {expected}", flag.name),
        )
        .fix(format!("Pass --{} {expected}", flag.name))
        .context(json!({ "flag": format!("--{}", flag.name), "value": value }))
    };
    match flag.kind {
        Kind::Bool => Ok(()),
        Kind::Text if value.is_empty() => Err(invalid("a non-empty value".to_owned())),
        Kind::Text => Ok(()),
        Kind::Int { min, max } => match value.parse::<i64>() {
            Ok(number) if (min..=max).contains(&number) => Ok(()),
            _ => Err(invalid(format!("an integer from {min} to {max}"))),
        },
        Kind::Choice(choices) if choices.contains(&value) => Ok(()),
        Kind::Choice(choices) => Err(invalid(format!("one of {}", choices.join(", ")))),
        Kind::Duration if spec::parse_duration(value).is_some() => Ok(()),
        Kind::Duration => Err(invalid(
            "a duration such as 500ms, 10s or 2m, at most a day".to_owned(),
        )),
    }
}

/// The positional-through-shell defect: a "log line" made by a shell, which runs
/// whatever the value holds.
fn log_through_shell(value: &str) {
    let _ = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("printf '%s\\n' {value} >/dev/null"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Status;

    fn run(args: &[&str]) -> Parsed {
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        parse(&args, Faults::default())
    }

    fn error_code(args: &[&str]) -> Option<&'static str> {
        run(args).error.map(|error| error.code)
    }

    #[test]
    fn global_option_is_accepted_in_every_position() {
        for args in [
            &["--format", "plain", "deployments", "list", "--cursor", "x"][..],
            &["deployments", "--format", "plain", "list", "--cursor", "x"],
            &["deployments", "list", "--format=plain", "--cursor", "x"],
            &["deployments", "list", "--cursor", "x", "--format", "plain"],
        ] {
            let parsed = run(args);
            assert!(parsed.error.is_none(), "{args:?}: {:?}", parsed.error);
            assert_eq!(parsed.command.key, "deployments.list");
            assert_eq!(parsed.text("format"), Some("plain"));
            assert_eq!(parsed.text("cursor"), Some("x"));
        }
    }

    #[test]
    fn options_and_positionals_intersperse() {
        let after = run(&["deployments", "list", "staging", "--cursor", "c"]);
        let before = run(&["deployments", "list", "--cursor", "c", "staging"]);
        for parsed in [after, before] {
            assert!(parsed.error.is_none());
            assert_eq!(parsed.positional(0), Some("staging"));
            assert_eq!(parsed.text("cursor"), Some("c"));
        }
    }

    #[test]
    fn input_errors_are_validation_errors() {
        for (args, code) in [
            (
                &["deployments", "list", "--no-such-flag"][..],
                "UNKNOWN_FLAG",
            ),
            (&["deployments", "list", "--cursor"], "MISSING_VALUE"),
            (&["deployments", "list", "--limit", "0"], "INVALID_VALUE"),
            (&["--format", "yaml", "health"], "INVALID_VALUE"),
            (&["deployments", "list", "a", "b"], "UNEXPECTED_ARGUMENT"),
            (&["deployments", "get"], "MISSING_ARGUMENT"),
            (&["deployments", "delete"], "MISSING_FLAG"),
            (&["deployments", "nope"], "UNKNOWN_COMMAND"),
            (&["health", "--stream=yes"], "UNKNOWN_FLAG"),
            (
                &["deployments", "delete", "--yes=1", "--filter", "env=x"],
                "UNEXPECTED_VALUE",
            ),
            (
                &["--format", "json", "health", "--format", "plain"],
                "DUPLICATE_FLAG",
            ),
        ] {
            let parsed = run(args);
            let error = parsed.error.expect("an error");
            assert_eq!(error.code, code, "{args:?}");
            assert_eq!(error.status, Status::ArgError);
        }
    }

    #[test]
    fn resource_positionals_are_checked_while_parsing() {
        for args in [
            &["deployments", "list", "../staging"][..],
            &["deployments", "list", "..%2fstaging"],
            &["deployments", "list", "%2e%2e%2fstaging"],
            &["deployments", "list", "staging?foo=bar"],
            &["deployments", "list", "staging#frag"],
            &["deployments", "list", "qa"],
            &["deployments", "get", "../dep-001"],
            &["deployments", "get", "dep-001?x=1"],
            &["deployments", "get", "dep-01"],
        ] {
            assert_eq!(error_code(args), Some("INVALID_ARGUMENT"), "{args:?}");
        }
        assert_eq!(error_code(&["deployments", "list", "staging"]), None);
        assert_eq!(error_code(&["deployments", "get", "dep-1234"]), None);
    }

    #[test]
    fn durations_take_a_unit_or_mean_seconds() {
        for good in ["1s", "500ms", "30", "2m", "0"] {
            assert_eq!(error_code(&["releases", "--timeout", good]), None, "{good}");
        }
        for bad in ["1.5s", "-1", "1h", "s", "99999999999"] {
            assert_eq!(
                error_code(&["releases", "--timeout", bad]),
                Some("INVALID_VALUE"),
                "{bad}"
            );
        }
    }

    #[test]
    fn repeating_a_flag_with_the_same_value_is_accepted() {
        assert_eq!(
            error_code(&["--format", "json", "health", "--format", "json"]),
            None
        );
    }

    #[test]
    fn double_dash_ends_options() {
        // Taken as the ID, not as a flag: refused for its value, not as unknown.
        let parsed = run(&["deployments", "get", "--", "--weird-id"]);
        assert_eq!(parsed.positional(0), Some("--weird-id"));
        assert_eq!(parsed.error.map(|e| e.code), Some("INVALID_ARGUMENT"));
    }

    #[test]
    fn help_is_found_anywhere_before_double_dash() {
        assert!(run(&["deployments", "list", "--no-such", "-h"]).help);
        assert!(!run(&["deployments", "get", "--", "--help"]).help);
    }
}
