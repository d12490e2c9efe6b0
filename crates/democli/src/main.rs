//! democli: the reference agent-ready CLI of the conform kit.
//!
//! It follows the CLI Agent Spec: a ResponseEnvelope on stdout whenever stdout is not
//! a terminal, prose on stderr only, exit codes from the spec's table, interspersed
//! options, previews and confirmation for deletion, JSON-lines streams that end on a
//! terminal line, and SIGINT handling. `DEMOCLI_DEFECT` switches on one deliberate
//! defect for the broken-CLI corpus (see `defect.rs`).

mod codec;
mod commands;
mod defect;
mod desktop;
mod error;
mod help;
mod net;
mod output;
mod output_cap;
mod parse;
mod signals;
mod spec;
mod store;
mod stream;

use std::io::{self, ErrorKind};
use std::process::ExitCode;
use std::time::Instant;

use serde_json::{json, Value};

use crate::commands::{Ctx, Outcome};
use crate::defect::{Defect, Faults};
use crate::error::{CliError, Failure};
use crate::output::{envelope, Environment, Format, Meta, Ui, TOOL_VERSION};

fn main() -> ExitCode {
    let started = Instant::now();
    signals::install();
    match run(started) {
        Ok(code) => ExitCode::from(code),
        // The reader went away (`democli ... | head`): not an error (REQ-F-014).
        Err(error) if error.kind() == ErrorKind::BrokenPipe => {
            if Faults::from_env().is_ok_and(|faults| faults.on(Defect::BrokenPipePanics)) {
                panic!("failed printing to stdout: {error}");
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            output::write_stderr(&format!("democli: cannot write output: {error}\n"));
            ExitCode::from(1)
        }
    }
}

/// Parse, run and render one invocation; returns the process exit code.
fn run(started: Instant) -> io::Result<u8> {
    let env = Environment::capture();
    let (faults, faults_error) = match Faults::from_env() {
        Ok(faults) => (faults, None),
        Err(error) => (Faults::default(), Some(error)),
    };
    let args: Vec<String> = match std::env::args_os()
        .skip(1)
        .map(|arg| arg.into_string())
        .collect::<Result<_, _>>()
    {
        Ok(args) => args,
        Err(arg) => {
            let ui = Ui::new(None, env, faults);
            let error = CliError::usage(
                "INVALID_ARGUMENT",
                format!("argument {} is not valid UTF-8", arg.to_string_lossy()),
            );
            return ui.write_error(&error, "", started);
        }
    };

    if faults.on(Defect::DebugEnvOnStderr) && std::env::var_os("DEBUG").is_some() {
        output::write_stderr(&format!(
            "democli: debug: args {args:?}\ndemocli: debug: stdout is a terminal: {}\n",
            env.stdout_tty
        ));
    }
    if faults.on(Defect::DebugLeaksSecrets)
        && std::env::var_os("DEMOCLI_DEBUG").is_some_and(|v| !v.is_empty())
    {
        let secret_like = |name: &str| {
            ["_TOKEN", "_KEY", "_SECRET"]
                .iter()
                .any(|end| name.ends_with(end))
                || name == "TOKEN"
        };
        let mut lines = String::new();
        for (name, value) in std::env::vars().filter(|(name, _)| secret_like(name)) {
            lines.push_str(&format!("democli: debug: env {name}={value}\n"));
        }
        output::write_stderr(&lines);
    }
    let parsed = parse::parse(&args, faults);
    let format = parsed.text("format").and_then(Format::from_name);
    let ui = Ui::new(format, env, faults);
    let key = parsed.command.key;

    if let Some(error) = faults_error {
        return ui.write_error(&error, key, started);
    }
    if parsed.help {
        if faults.on(Defect::HelpCreatesConfig) {
            desktop::create_config_dir();
        }
        return help::print(&ui, parsed.command, started);
    }
    if args.is_empty() {
        // The bare command shows the root help and succeeds, like `--help`
        // (REQ-F-068): an agent probing what the tool is must not get an error.
        if faults.on(Defect::BareStartsRepl) {
            desktop::repl();
        }
        let code = help::print(&ui, parsed.command, started)?;
        return Ok(if faults.on(Defect::BareExits1) {
            1
        } else {
            code
        });
    }
    if let Some(error) = &parsed.error {
        if faults.on(Defect::InvalidWritesCache) {
            desktop::write_cache(&args);
        }
        if faults.on(Defect::EditorOnInvalidInput) {
            desktop::open_editor();
        }
        if let (true, Ok(token)) = (
            faults.on(Defect::ErrorEchoesToken),
            std::env::var(desktop::TOKEN_ENV),
        ) {
            let mut error = error.clone();
            error.message = format!("{} (called with token {token})", error.message);
            return ui.write_error(&error, key, started);
        }
        return ui.write_error(error, key, started);
    }
    if parsed.switch("version") {
        return version(&ui, started);
    }
    if faults.on(Defect::UpdateNoticeInCi) {
        output::write_stderr(
            "democli: a new version 9.9.9 is available, run `npm install -g democli@latest` to upgrade\n",
        );
    }
    let cap = match output_cap::from_env() {
        Ok(cap) => cap,
        Err(error) => return ui.write_error(&error, key, started),
    };

    let data_command = key.starts_with("deployments.") || key == "events";
    if data_command && faults.on(Defect::WaitsForDeviceCode) {
        if let Err(error) = desktop::device_code_login() {
            return ui.write_error(&error, key, started);
        }
    }

    if data_command
        && faults.on(Defect::ProseUsageErrorHeadless)
        && desktop::anonymous_on_silent_pipe()
    {
        output::write_stderr(
            "error: a project slug is required: run inside a democli project or pass --project <SLUG>\n",
        );
        return Ok(1);
    }

    let ctx = Ctx {
        ui,
        started,
        command: parsed.command,
    };
    match commands::dispatch(&parsed, &ctx) {
        Ok(Outcome::Streamed(code)) => Ok(code),
        Ok(Outcome::Reply(reply)) => {
            // A signal during a command that committed nothing ends it as cancelled
            // (REQ-F-069), even when its result is ready.
            if let Some(signal) = signals::received().filter(|_| !reply.committed) {
                return ui.write_error(&CliError::interrupted(signal), key, started);
            }
            let listing = key == "deployments.list";
            if listing && faults.on(Defect::BrowserOnRead) {
                desktop::open_dashboard();
            }
            let paged = listing && faults.on(Defect::ListPipesThroughPager);
            let less = listing && faults.on(Defect::ListPipesThroughLess);
            // The text is made only for a pager: a 64 MiB envelope written twice
            // cost a debug build most of a 5 s limit.
            let page = |text: &dyn Fn() -> String| {
                (paged && desktop::page(&text())) || (less && desktop::page_with_less(&text()))
            };
            match ui.format {
                Format::Json => {
                    let mut meta = Meta::new(key, started);
                    meta.extend(reply.meta);
                    let mut reply_envelope = envelope(0, reply.data, None, meta.finish(0));
                    reply_envelope["warnings"] = Value::Array(reply.warnings);
                    if let Some(cap) = cap {
                        output_cap::fit(&mut reply_envelope, cap, reply.resume, faults);
                    }
                    let reply = reply_envelope;
                    if !page(&|| format!("{reply}\n")) {
                        ui.write_envelope(reply)?;
                    }
                }
                Format::Plain => {
                    if !page(&|| reply.plain.clone()) {
                        output::write_stdout(&reply.plain)?;
                    }
                }
            }
            Ok(0)
        }
        Err(Failure::Cli(error)) => ui.write_error(&error, key, started),
        Err(Failure::Io(error)) => Err(error),
    }
}

fn version(ui: &Ui, started: Instant) -> io::Result<u8> {
    match ui.format {
        Format::Json => {
            let meta = Meta::new("", started);
            let data = json!({ "name": "democli", "version": TOOL_VERSION });
            ui.write_envelope(envelope(0, data, None, meta.finish(0)))?;
        }
        Format::Plain => output::write_stdout(&format!("democli {TOOL_VERSION}\n"))?,
    }
    Ok(0)
}
