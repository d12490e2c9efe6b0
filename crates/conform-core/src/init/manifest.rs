//! Manifest -> profile, as the profile format's "Agent interpretation" says: safe
//! commands become read probes, destructive ones destructive probes with their
//! preview flag, streaming ones stream probes; mutating commands are never probed,
//! nor are commands that read stdin (declared, or piped into in their examples):
//! probes run with stdin held open too.
//!
//! Each read probe is tried once first. A declared-safe command whose trial fails
//! is still written (the manifest vouches for it, and `conform run` reports what
//! went wrong), unless it went for the network: its verdicts would depend on it.

use serde_json::{json, Map, Value};

use super::runner::{Measured, Tool, Trial};
use super::{probe, Body, Failure, Warning, UNKNOWN_FLAG};
use crate::checks::schemas;
use crate::profile::CONFIRMATION_FLAGS;

/// Boolean flags that turn a command into a preview, most conventional first.
const DRY_RUN_FLAGS: &[&str] = &[
    "dry-run", "dry_run", "dryrun", "preview", "what-if", "whatif", "simulate", "noop", "no-op",
];

/// Global flags that select the output format, for `argument_order`, best first.
const FORMAT_FLAGS: &[&str] = &["format", "output", "output-format"];

/// Alternates to `json` that render differently, best first.
const ALTERNATES: &[&str] = &[
    "plain", "text", "table", "human", "pretty", "yaml", "csv", "tsv",
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
pub(super) fn profile_from(manifest: &Value, tool: &mut dyn Tool) -> Body {
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
            body.warnings.push(Warning::skipped(&shown, "danger_level is mutating: probes run several times and the kit cannot undo side effects"));
            continue;
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
            "safe" => {
                let stream_flag = command.flag("stream").is_some_and(is_boolean);
                if command.bool_field("streaming_default") {
                    stream_probes(&shown, argv.clone(), tool, &mut body);
                    streams.push(argv);
                    continue;
                }
                match tool.try_read(&argv) {
                    Trial::Passed => {}
                    Trial::Failed {
                        reason,
                        network: true,
                    } => {
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

/// An example invocation split into its arguments after the command path.
#[derive(Debug, Default)]
struct ExampleArgs {
    /// `--name value` and `--name=value` (value `None` for a switch).
    flags: Vec<(String, Option<String>)>,
    positionals: Vec<String>,
}

/// The arguments of every example of `command` that names its path.
fn examples(command: &Command, root_flags: &Map<String, Value>) -> Vec<ExampleArgs> {
    let Some(list) = command.entry.get("examples").and_then(Value::as_array) else {
        return Vec::new();
    };
    let takes_value = |name: &str| match command.flag(name).or(root_flags.get(name)) {
        Some(flag) => !is_boolean(flag),
        None => false,
    };
    let mut out = Vec::new();
    for example in list {
        let Some(line) = example.get("command").and_then(Value::as_str) else {
            continue;
        };
        let words = split_words(line);
        let n = command.path.len();
        let Some(start) =
            (0..=words.len().saturating_sub(n)).find(|&i| words[i..].starts_with(&command.path))
        else {
            continue;
        };
        let mut args = ExampleArgs::default();
        let mut rest = words[start + n..].iter();
        while let Some(word) = rest.next() {
            if let Some(long) = word.strip_prefix("--") {
                match long.split_once('=') {
                    Some((name, value)) => args.flags.push((name.into(), Some(value.into()))),
                    None if takes_value(long) => {
                        args.flags.push((long.into(), rest.next().cloned()))
                    }
                    None => args.flags.push((long.into(), None)),
                }
            } else if word.starts_with('-') && word.len() > 1 {
                // A short option: its value cannot be told apart from a positional.
                continue;
            } else {
                args.positionals.push(word.clone());
            }
        }
        out.push(args);
    }
    out
}

/// Shell-like words: whitespace-separated, with '...' and "..." quoting.
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// `dry-run`, `dry_run` and `DRY_RUN` name the same thing.
fn same_name(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.to_ascii_lowercase().replace('-', "_");
    norm(a) == norm(b)
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

/// Whether the shell line runs `path` with something on its stdin: after a `|`,
/// with a `<` redirection, or with `-` as an argument.
fn feeds_stdin(line: &str, path: &[String]) -> bool {
    pipeline(line).iter().any(|(after_pipe, words)| {
        (0..words.len())
            .find(|&i| words[i..].starts_with(path))
            .is_some_and(|at| {
                *after_pipe
                    || words[at + path.len()..]
                        .iter()
                        .any(|w| w == "-" || w.starts_with('<'))
            })
    })
}

/// The commands of a shell line, each with whether it follows a `|` (not `||`):
/// words split as [`split_words`] does, an unquoted `<` starting a word of its own.
fn pipeline(line: &str) -> Vec<(bool, Vec<String>)> {
    let mut out = Vec::new();
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut after_pipe = false;
    let mut chars = line.chars().peekable();
    fn end_word(word: &mut String, in_word: &mut bool, words: &mut Vec<String>) {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    }
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c == '|' || c == ';' || c == '&' => {
                end_word(&mut word, &mut in_word, &mut words);
                let doubled = chars.peek() == Some(&c);
                if doubled {
                    chars.next();
                }
                out.push((after_pipe, std::mem::take(&mut words)));
                after_pipe = c == '|' && !doubled;
            }
            None if c == '<' => {
                end_word(&mut word, &mut in_word, &mut words);
                word.push(c);
                in_word = true;
            }
            None if c.is_whitespace() => end_word(&mut word, &mut in_word, &mut words),
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut words);
    out.push((after_pipe, words));
    out
}

/// A scalar as an argv word.
fn word(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The required flags and positionals of `command`, filled from its examples, else
/// a default, else the first enum value; `Err` names what cannot be filled.
fn required_args(
    command: &Command,
    root_flags: &Map<String, Value>,
) -> Result<Vec<String>, String> {
    let examples = examples(command, root_flags);
    let mut positionals = Vec::new();
    let declared: Vec<&Value> = command
        .entry
        .get("positionals")
        .and_then(Value::as_array)
        .map(|p| p.iter().collect())
        .unwrap_or_default();
    // A positional that is also a required flag (`name` both ways, as the treaty
    // framework lists it) is required too; the examples give it positionally.
    fn twin<'v>(command: &Command, positional: &'v Value) -> Option<&'v str> {
        let name = positional.get("name").and_then(Value::as_str)?;
        let flag = command.flags.get(name).or_else(|| {
            command
                .flags
                .iter()
                .find(|(flag, _)| same_name(flag, name))
                .map(|(_, v)| v)
        })?;
        (flag.get("required").and_then(Value::as_bool) == Some(true)).then_some(name)
    }
    // The flags given as their positional twin.
    let mut as_positional: Vec<String> = Vec::new();
    for (index, positional) in declared.iter().enumerate() {
        let required = positional.get("required").and_then(Value::as_bool) == Some(true);
        let twin = twin(command, positional);
        if !required && twin.is_none() {
            continue;
        }
        // Positionals after a missing optional one cannot be placed.
        if positionals.len() < index {
            break;
        }
        if let Some(name) = twin {
            let given_as_flag = examples.iter().any(|e| {
                e.flags
                    .iter()
                    .any(|(n, v)| same_name(n, name) && v.is_some())
            });
            let given_as_positional = examples.iter().any(|e| e.positionals.len() > index);
            if !required && (given_as_flag || !given_as_positional) {
                continue;
            }
            as_positional.push(name.to_string());
        }
        let name = positional
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("?");
        let value = examples
            .iter()
            .find_map(|e| e.positionals.get(index).cloned())
            .or_else(|| {
                positional
                    .get("enum_values")
                    .and_then(|v| v.get(0))
                    .and_then(word)
            });
        match value {
            Some(value) => positionals.push(value),
            None => {
                return Err(format!(
                    "required positional <{name}> has no value in the command's examples and no enum value"
                ))
            }
        }
    }
    let mut names: Vec<&String> = command.flags.keys().collect();
    names.sort();
    let mut flags = Vec::new();
    for name in names {
        let flag = &command.flags[name];
        if flag.get("required").and_then(Value::as_bool) != Some(true) {
            continue;
        }
        if as_positional.iter().any(|p| same_name(p, name)) {
            continue;
        }
        if CONFIRMATION_FLAGS.contains(&format!("--{name}").as_str()) {
            return Err(format!(
                "required flag --{name} is a confirmation flag, which a profile never passes"
            ));
        }
        if is_boolean(flag) {
            flags.push(format!("--{name}"));
            continue;
        }
        let from_example = examples.iter().find_map(|e| {
            e.flags
                .iter()
                .find(|(n, v)| n == name && v.is_some())
                .and_then(|(_, v)| v.clone())
        });
        let value = from_example
            .or_else(|| flag.get("default").and_then(word))
            .or_else(|| {
                flag.get("enum_values")
                    .and_then(|v| v.get(0))
                    .and_then(word)
            });
        match value {
            Some(value) => {
                flags.push(format!("--{name}"));
                flags.push(value);
            }
            None => {
                return Err(format!(
                    "required flag --{name} has no value in the command's examples, no default and no enum value"
                ))
            }
        }
    }
    positionals.extend(flags);
    Ok(positionals)
}

/// `argument_order` from a global enum flag with two values and a read command's
/// local option whose value is known to be accepted (an example or an enum value).
fn argument_order(root_flags: &Map<String, Value>, reads: &[Command]) -> Result<Value, String> {
    let enum_values = |flag: &Value| -> Vec<String> {
        flag.get("enum_values")
            .and_then(Value::as_array)
            .map(|v| {
                v.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut candidates: Vec<&String> = root_flags.keys().collect();
    candidates.sort_by_key(|name| {
        (
            FORMAT_FLAGS
                .iter()
                .position(|f| f == name)
                .unwrap_or(FORMAT_FLAGS.len()),
            name.to_string(),
        )
    });
    let global = candidates
        .into_iter()
        .find(|name| enum_values(&root_flags[name.as_str()]).len() >= 2)
        .ok_or("the manifest declares no global enum flag with two values (such as format: json, plain)")?;
    let values = enum_values(&root_flags[global.as_str()]);
    let value = if values.iter().any(|v| v == "json") {
        "json".to_string()
    } else {
        values[0].clone()
    };
    let alternate = ALTERNATES
        .iter()
        .map(|a| a.to_string())
        .find(|a| *a != value && values.contains(a))
        .or_else(|| values.iter().find(|v| **v != value).cloned())
        .ok_or("the global flag has one distinct value")?;
    for command in reads {
        if let Some(local_args) = local_option(command, root_flags) {
            let mut order = Map::new();
            order.insert("command_path".into(), json!(command.path));
            order.insert("local_args".into(), json!(local_args));
            order.insert("global_flag".into(), json!(format!("--{global}")));
            order.insert("value".into(), json!(value));
            order.insert("alternate_value".into(), json!(alternate));
            return Ok(Value::Object(order));
        }
    }
    Err(format!(
        "no safe command without required arguments has a local option with a known value (from its examples, or a non-default enum value) to place --{global} around"
    ))
}

/// A local option that takes a value, and a value that changes the output: one from
/// the command's examples, else an enum value other than the default.
fn local_option(command: &Command, root_flags: &Map<String, Value>) -> Option<Vec<String>> {
    let examples = examples(command, root_flags);
    let mut names: Vec<&String> = command.flags.keys().collect();
    names.sort();
    for name in names {
        let flag = &command.flags[name];
        if is_boolean(flag)
            || root_flags.contains_key(name.as_str())
            || FORMAT_FLAGS.contains(&name.as_str())
        {
            continue;
        }
        let from_example = examples.iter().find_map(|e| {
            e.flags
                .iter()
                .find(|(n, v)| n == name && v.is_some())
                .and_then(|(_, v)| v.clone())
        });
        let default = flag.get("default").and_then(word);
        let from_enum = flag
            .get("enum_values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(word)
            .find(|v| Some(v) != default.as_ref());
        if let Some(value) = from_example.or(from_enum) {
            return Some(vec![format!("--{name}"), value]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            split_words(r#"tool get "a b" 'c' --x=1"#),
            vec!["tool", "get", "a b", "c", "--x=1"]
        );
        assert_eq!(split_words("  "), Vec::<String>::new());
        assert_eq!(split_words("t ''"), vec!["t", ""]);
    }

    #[test]
    fn input_on_stdin_is_seen_in_examples() {
        let path = |p: &str| p.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert!(feeds_stdin("cat plan.json | app exec", &path("exec")));
        assert!(feeds_stdin("app exec < plan.json", &path("exec")));
        assert!(feeds_stdin("app exec<plan.json", &path("exec")));
        assert!(feeds_stdin("app items import -", &path("items import")));
        assert!(!feeds_stdin("app exec plan.json | jq .data", &path("exec")));
        assert!(!feeds_stdin("app login || app exec", &path("exec")));
        assert!(!feeds_stdin("echo 'a | app exec'", &path("exec")));
        assert!(!feeds_stdin("app list --filter 'x<y'", &path("list")));
    }
}
