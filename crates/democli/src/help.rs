//! `--help` text, generated from the registry. Off a terminal it goes to stderr and
//! stdout gets a one-line JSON stub instead (REQ-F-048).

use std::fmt::Write as _;
use std::io;
use std::time::Instant;

use serde_json::{json, Value};

use crate::defect::Defect;
use crate::output::{self, envelope, Format, Meta, Ui};
use crate::spec::{self, Command, Fallback, Flag, Kind};

pub fn print(ui: &Ui, command: &Command, started: Instant) -> io::Result<u8> {
    let mut text = render(command);
    if ui.faults.on(Defect::ApiKeyFlagOnly) && command.key == crate::defect::API_KEY_COMMAND {
        // The flag goes first among the command's options.
        let mut line = String::new();
        flag_lines(
            &mut line,
            std::slice::from_ref(&crate::defect::API_KEY_FLAG),
        );
        text = text.replacen("Options:\n", &format!("Options:\n{line}"), 1);
    }
    if ui.env.stdout_tty || ui.faults.on(Defect::HelpOnStdout) {
        output::write_stdout(&text)?;
        return Ok(0);
    }
    if ui.faults.on(Defect::HelpInCrlf) {
        output::write_stderr(&text.replace('\n', "\r\n"));
    } else {
        output::write_stderr(&text);
    }
    if ui.format == Format::Json {
        let mut meta = Meta::new(command.key, started);
        meta.insert("help", json!(true));
        meta.insert("schema_ref", json!("democli manifest"));
        ui.write_envelope(envelope(0, Value::Null, None, meta.finish(0)))?;
    }
    Ok(0)
}

pub fn render(command: &Command) -> String {
    let mut text = String::new();
    let name = if command.path.is_empty() {
        "democli".to_owned()
    } else {
        format!("democli {}", command.display())
    };
    // Writing to a String cannot fail.
    let _ = writeln!(text, "{name} - {}\n", command.description);
    let _ = writeln!(text, "Usage: {}\n", usage(command, &name));

    if command.is_group() {
        text.push_str("Commands:\n");
        let children: Vec<&Command> = command
            .subcommands
            .iter()
            .filter_map(|key| spec::find(key))
            .collect();
        let width = children
            .iter()
            .map(|c| c.display().len())
            .max()
            .unwrap_or(0);
        for child in children {
            let _ = writeln!(text, "  {:width$}  {}", child.display(), child.description);
        }
        text.push('\n');
    }
    if !command.positionals.is_empty() {
        text.push_str("Arguments:\n");
        for positional in command.positionals {
            let _ = writeln!(
                text,
                "  {:22}  {}{}",
                positional.name.to_uppercase(),
                positional.description,
                if positional.required {
                    " (required)"
                } else {
                    ""
                }
            );
        }
        text.push('\n');
    }
    if !command.flags.is_empty() {
        text.push_str("Options:\n");
        flag_lines(&mut text, command.flags);
        text.push('\n');
    }
    text.push_str("Global options (any position):\n");
    flag_lines(&mut text, spec::GLOBAL_FLAGS);

    if command.streaming_default {
        text.push_str(
            "\nStreams JSON lines by default (streaming_default); --no-stream returns one envelope.\n",
        );
    }
    if !command.exits.is_empty() && !command.path.is_empty() {
        text.push_str("\nExit codes:\n");
        for entry in command.exits {
            let _ = writeln!(
                text,
                "  {:>3}  {:13}  {}",
                entry.status.code(),
                entry.status.name(),
                entry.description
            );
        }
    }
    for example in command.examples {
        let _ = write!(
            text,
            "\nExample: {}\n  {}\n",
            example.description, example.command
        );
    }
    text
}

fn usage(command: &Command, name: &str) -> String {
    let mut line = name.to_owned();
    if command.is_group() {
        line.push_str(" <command>");
    }
    for positional in command.positionals {
        let word = positional.name.to_uppercase();
        if positional.required {
            let _ = write!(line, " {word}");
        } else {
            let _ = write!(line, " [{word}]");
        }
    }
    for flag in command.flags {
        let shown = flag_usage(flag);
        if flag.required {
            let _ = write!(line, " {shown}");
        } else {
            let _ = write!(line, " [{shown}]");
        }
    }
    line.push_str(" [--format json|plain]");
    line
}

fn flag_usage(flag: &Flag) -> String {
    match flag.kind {
        Kind::Bool => format!("--{}", flag.name),
        _ => format!("--{} {}", flag.name, flag.value_name),
    }
}

fn flag_lines(text: &mut String, flags: &[Flag]) {
    for flag in flags {
        let mut shown = flag_usage(flag);
        if let Some(short) = flag.short {
            shown = format!("-{short}, {shown}");
        }
        let default = match (flag.kind, flag.default) {
            (Kind::Bool, _) | (_, None) => String::new(),
            (_, Some(Fallback::Int(value))) => format!(" (default: {value})"),
            (_, Some(Fallback::Bool(value))) => format!(" (default: {value})"),
            (_, Some(Fallback::Text(value))) => format!(" (default: {value})"),
        };
        let _ = writeln!(text, "  {shown:22}  {}{default}", flag.description);
    }
}
