//! Manifest -> profile, as the profile format's "Agent interpretation" says: safe
//! commands become read probes, destructive ones destructive probes with their
//! preview flag, streaming ones stream probes; mutating commands are never saved
//! (under `conform check` they are probed in its hermetic runs only), nor are
//! commands that read stdin (declared, or piped into in their examples):
//! probes run with stdin held open too.
//!
//! Each read probe is tried once first. A declared-safe command whose trial fails
//! is still written (the manifest vouches for it, and `conform run` reports what
//! went wrong), unless it went for the network: its verdicts would depend on it.

mod argument_order;
mod arguments;
mod shell;

use serde_json::{json, Map, Value};

use super::tool::{Measured, Tool, Trial};
use super::{probe, Body, Failure, Warning, UNKNOWN_FLAG};
use crate::checks::schemas;
use argument_order::argument_order;
use arguments::required_args;
use shell::feeds_stdin;

/// Boolean flags that turn a command into a preview, most conventional first.
const DRY_RUN_FLAGS: &[&str] = &[
    "dry-run", "dry_run", "dryrun", "preview", "what-if", "whatif", "simulate", "noop", "no-op",
];

/// The ManifestResponse in `text`: a bare one or the `data` of an envelope. Invalid
/// against the spec's schemas is an error naming what is wrong.
pub(super) fn parse_manifest(text: &str, what: &str) -> Result<Value, Failure> {
    let fix = "fix the manifest so that `conform run` can pass manifest_valid, or use --from-help";
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| Failure::input("INVALID_MANIFEST", format!("{what} is not JSON: {e}"), fix))?;
    let is_envelope = doc.get("ok").is_some_and(Value::is_boolean) && doc.get("data").is_some();
    let data = if is_envelope {
        doc["data"].clone()
    } else {
        doc
    };
    let errors = schemas::manifest_errors(&data);
    if !errors.is_empty() {
        let mut failure = Failure::input(
            "INVALID_MANIFEST",
            format!(
                "{what} is not a valid ManifestResponse ({} error{}): {}",
                errors.len(),
                if errors.len() == 1 { "" } else { "s" },
                schemas::summarize(&errors)
            ),
            fix,
        );
        failure.context = Some(Box::new(json!({ "errors": errors })));
        return Err(failure);
    }
    Ok(data)
}

/// A command of the manifest.
struct Command<'m> {
    path: Vec<String>,
    entry: &'m Value,
    flags: Map<String, Value>,
}

impl<'m> Command<'m> {
    fn shown(&self) -> String {
        self.path.join(" ")
    }

    fn flag(&self, name: &str) -> Option<&Value> {
        self.flags.get(name)
    }

    fn bool_field(&self, name: &str) -> bool {
        self.entry.get(name).and_then(Value::as_bool) == Some(true)
    }
}

/// The probes, `argument_order` and warnings for a manifest. `tool` measures a
/// stream and tries a read probe (argv after the command prefix).
pub(super) fn profile_from(
    manifest: &Value,
    tool: &mut dyn Tool,
    mutating: Result<(), String>,
) -> Body {
    let empty = Map::new();
    let root_flags = manifest
        .get("flags")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let commands = manifest
        .get("commands")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    // Sorted: the same manifest gives the same bytes whatever its key order.
    let mut keys: Vec<&String> = commands.keys().collect();
    keys.sort();

    let mut body = Body::default();
    let mut reads: Vec<Vec<String>> = Vec::new();
    let mut streams: Vec<Vec<String>> = Vec::new();
    // Read commands that need no argument, for argument_order.
    let mut plain_reads: Vec<Command> = Vec::new();
    for key in keys {
        let entry = &commands[key];
        let command = Command {
            path: key.split('.').map(str::to_string).collect(),
            entry,
            flags: entry
                .get("flags")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        };
        let shown = command.shown();
        let danger = entry
            .get("danger_level")
            .and_then(Value::as_str)
            .unwrap_or("");
        if command.bool_field("builtin") {
            body.warnings.push(Warning::skipped(
                &shown,
                "a builtin command (the manifest itself is judged by manifest_valid)",
            ));
            continue;
        }
        if entry
            .get("subcommands")
            .and_then(Value::as_array)
            .is_some_and(|s| !s.is_empty())
        {
            body.warnings.push(Warning::skipped(
                &shown,
                "a command group; its subcommands are probed",
            ));
            continue;
        }
        if danger == "mutating" {
            if let Err(why) = &mutating {
                body.warnings.push(Warning::skipped(
                    &shown,
                    format!("danger_level is mutating: {why}"),
                ));
                continue;
            }
        }
        if let Some(reason) = reads_stdin(&command) {
            body.warnings.push(Warning::skipped(&shown, reason));
            continue;
        }
        let args = match required_args(&command, root_flags) {
            Ok(args) => args,
            Err(reason) => {
                body.warnings.push(Warning::skipped(&shown, reason));
                continue;
            }
        };
        let argv: Vec<String> = command
            .path
            .iter()
            .cloned()
            .chain(args.iter().cloned())
            .collect();
        match danger {
            // Judged in conform check's fresh sandboxes at the black hole, never
            // saved: a saved probe runs anywhere, with real credentials.
            "mutating" => {
                body.warnings
                    .push(Warning::check_only(&shown, "danger_level is mutating", &[]));
                body.check_only
                    .push(Value::Object(probe(&shown, &argv, "read")));
            }
            "safe" => {
                let stream_flag = command.flag("stream").is_some_and(is_boolean);
                if command.bool_field("streaming_default") {
                    stream_probes(&shown, argv.clone(), tool, &mut body);
                    streams.push(argv);
                    continue;
                }
                match tool.try_read(&argv) {
                    Trial::Passed => {}
                    // Under `conform check` every run has its own black hole, so the
                    // verdicts do not depend on the network: the probe is kept.
                    Trial::Failed {
                        reason,
                        network: true,
                    } if !tool.hermetic() => {
                        body.warnings.push(Warning::dropped(&shown, reason));
                        continue;
                    }
                    Trial::Failed { reason, .. } => body.warnings.push(Warning::new(
                        "TRIAL_FAILED",
                        format!("{shown}: probe written, as the manifest declares it safe, though {reason}; `conform run` will show what goes wrong"),
                        json!({ "command": shown, "reason": reason }),
                    )),
                }
                body.probes
                    .push(Value::Object(probe(&shown, &argv, "read")));
                reads.push(argv.clone());
                if args.is_empty() {
                    plain_reads.push(command);
                }
                if stream_flag {
                    let argv: Vec<String> =
                        argv.into_iter().chain(["--stream".to_string()]).collect();
                    stream_probes(&shown, argv, tool, &mut body);
                }
            }
            "destructive" => destructive_probe(&command, argv, &mut body),
            other => body.warnings.push(Warning::skipped(
                &shown,
                format!("unknown danger_level {other:?}"),
            )),
        }
    }

    // The first read probe is the one the kit adds a made-up flag to: one with no
    // argument after its command path, so no positional can change its reading.
    first_plain_read(&mut body.probes, &plain_reads);
    // The invalid probe: an unknown flag on a command known to accept its
    // arguments, one without positionals first.
    let plain: Vec<Vec<String>> = plain_reads.iter().map(|c| c.path.clone()).collect();
    match plain.first().or(reads.first()).or(streams.first()) {
        Some(argv) => {
            let argv: Vec<String> = argv
                .iter()
                .cloned()
                .chain([UNKNOWN_FLAG.to_string()])
                .collect();
            let name = format!("unknown flag on {}", argv[..argv.len() - 1].join(" "));
            body.probes
                .push(Value::Object(probe(&name, &argv, "invalid")));
        }
        None => body.warnings.push(Warning::new(
            "INVALID_PROBE_SKIPPED",
            "no safe command to give an unknown flag to: invalid_input_exit_2 will be skipped",
            json!({}),
        )),
    }

    match argument_order(root_flags, &plain_reads) {
        Ok(order) => body.argument_order = Some(order),
        Err(reason) => body.warnings.push(Warning::new(
            "ARGUMENT_ORDER_SKIPPED",
            format!("no argument_order written: {reason}"),
            json!({ "reason": reason }),
        )),
    }
    body
}

/// Moves the first read probe whose argv is a command of `plain` (no arguments)
/// to the place of the first read probe, keeping everything else in order.
fn first_plain_read(probes: &mut [Value], plain: &[Command]) {
    let is_read = |p: &Value| p.get("kind").and_then(Value::as_str) == Some("read");
    let is_plain = |p: &Value| {
        let argv: Vec<&str> = p
            .get("argv")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        plain.iter().any(|c| c.path == argv)
    };
    let first = probes.iter().position(is_read);
    let first_plain = probes.iter().position(|p| is_read(p) && is_plain(p));
    if let (Some(first), Some(plain)) = (first, first_plain) {
        probes[first..=plain].rotate_right(1);
    }
}

fn is_boolean(flag: &Value) -> bool {
    flag.get("type").and_then(Value::as_str) == Some("boolean")
}

/// A stream probe and, when the measured run printed at least two lines, one
/// interrupted after half of them (well inside a normal run).
fn stream_probes(shown: &str, argv: Vec<String>, tool: &mut dyn Tool, body: &mut Body) {
    let interrupt = |lines: u64| {
        let mut p = probe(&format!("interrupt {shown} stream"), &argv, "stream");
        p.insert("signal".into(), json!("INT"));
        p.insert("after_lines".into(), json!((lines / 2).max(1)));
        Value::Object(p)
    };
    let context = json!({ "command": shown, "argv": argv });
    match tool.measure(&argv) {
        Measured::Finished { lines } => {
            body.probes.push(Value::Object(probe(
                &format!("stream {shown}"),
                &argv,
                "stream",
            )));
            if lines >= 2 {
                body.probes.push(interrupt(lines));
            } else {
                body.warnings.push(Warning::new(
                    "SIGNAL_PROBE_SKIPPED",
                    format!("{shown}: the stream printed {lines} line(s) when measured, too few to interrupt it inside a normal run; no signal probe written"),
                    context,
                ));
            }
        }
        Measured::TimedOut { lines } if lines >= 2 => {
            body.probes.push(interrupt(lines));
            body.warnings.push(Warning::new(
                "STREAM_NOT_FINISHED",
                format!("{shown}: the stream was still running at the limit; only the interrupted stream probe is written"),
                context,
            ));
        }
        Measured::TimedOut { .. } => body.warnings.push(Warning::skipped(
            shown,
            "the stream printed fewer than 2 lines within the limit and did not end",
        )),
        Measured::Failed => body.warnings.push(Warning::skipped(
            shown,
            "the stream could not be run to measure it",
        )),
    }
}

fn destructive_probe(command: &Command, argv: Vec<String>, body: &mut Body) {
    let shown = command.shown();
    let flag = DRY_RUN_FLAGS
        .iter()
        .find(|name| command.flag(name).is_some_and(is_boolean));
    let Some(flag) = flag else {
        let reason = if command.bool_field("safe_default") {
            "previews by default (safe_default) and declares no dry-run flag; the profile format needs one"
        } else {
            "destructive without a boolean dry-run flag (such as dry-run) to preview it"
        };
        body.warnings.push(Warning::skipped(&shown, reason));
        return;
    };
    let mut p = probe(&shown, &argv, "destructive");
    p.insert("dry_run_flag".into(), json!(format!("--{flag}")));
    body.probes.push(Value::Object(p));
}

/// Why `command` reads stdin, when it does: a `stdin` declaration, stdout as a
/// protocol channel (a server, talking over stdin too), or an example that pipes
/// or redirects into it or passes `-` for a file. Its probes would run with stdin
/// held open, where it waits for input until the limit.
fn reads_stdin(command: &Command) -> Option<String> {
    if let Some(stdin) = command.entry.get("stdin") {
        let mode = stdin
            .get("mode")
            .and_then(Value::as_str)
            .map(|m| format!(" (mode {m})"))
            .unwrap_or_default();
        return Some(format!("it declares stdin input{mode}; probes also run with stdin held open, where it would wait for input"));
    }
    if command.entry.get("stdout").and_then(Value::as_str) == Some("protocol") {
        return Some(
            "its stdout is a protocol channel (a server on stdin and stdout), never an envelope"
                .into(),
        );
    }
    let list = command.entry.get("examples").and_then(Value::as_array)?;
    list.iter()
        .filter_map(|e| e.get("command").and_then(Value::as_str))
        .find(|line| feeds_stdin(line, &command.path))
        .map(|line| format!("its example {line:?} gives it input on stdin; probes also run with stdin held open, where it would wait for input"))
}
