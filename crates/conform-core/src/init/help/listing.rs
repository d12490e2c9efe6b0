//! Complete command listings a tool offers beside its help: oclif's
//! `commands --json`, git's `help -a`, cargo's `--list`, `--help-all`.

use serde_json::Value;

use super::commands::{full_list_argv, subcommands, HelpEntry};

/// The arguments (after the program) of every complete listing the root help
/// points at, the machine-readable one first, each once:
/// - `["commands", "--json"]` when the help lists oclif's `commands` command
///   (`@oclif/plugin-commands`: "List all herd commands.");
/// - what the help names for every command: git's `'git help -a'` (`["help",
///   "-a"]`), cargo's "See all commands with --list" (`["--list"]`);
/// - `["--help-all"]` when the help mentions that flag.
///
/// Run each as `program ARGS` (stdin closed, like a help call) and read its
/// stdout with [`read_listing`]. `program` is the program's name as the help
/// writes it.
pub(super) fn listing_argvs(root: &str, program: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let lists_commands = subcommands(root, &[program])
        .iter()
        .any(|e| e.name == "commands" && e.summary.to_ascii_lowercase().contains("command"));
    if lists_commands && is_oclif(root) {
        out.push(vec!["commands".into(), "--json".into()]);
    }
    if let Some(argv) = full_list_argv(root, program) {
        out.push(argv);
    }
    let help_all = root.contains("--help-all");
    if help_all {
        out.push(vec!["--help-all".into()]);
    }
    out.dedup();
    out
}

/// Whether the help has oclif's layout: capital `COMMANDS` or `TOPICS` headings,
/// or its usage written as a shell line (`$ herd [COMMAND]`).
fn is_oclif(help: &str) -> bool {
    help.lines().any(|line| {
        matches!(line.trim_end(), "COMMANDS" | "TOPICS") || line.trim_start().starts_with("$ ")
    })
}

/// The commands a listing printed: a JSON array (oclif's `commands --json`) of
/// command objects, or of ids; else text read as a help listing (`git help -a`,
/// `cargo --list`, `--help-all`). `program` is the program's name.
///
/// From JSON, each entry's `name` and `path` are its id (`["apps:create"]`;
/// oclif also accepts the id as typed, even with a space as its topic separator),
/// its `summary` the `summary` or the first line of the `description`, and
/// `requires_argument` whether an argument or a flag is `required`; hidden
/// commands are left out. Every topic the ids imply but do not list
/// (`config` of `config:get`) follows as a `group` entry. A listing that is
/// neither (an error, prose) gives no entries.
pub(super) fn read_listing(text: &str, program: &str) -> Vec<HelpEntry> {
    if text.trim_start().starts_with('[') {
        if let Ok(Value::Array(items)) = serde_json::from_str::<Value>(text) {
            return from_json(&items);
        }
    }
    subcommands(text, &[program])
}

fn from_json(items: &[Value]) -> Vec<HelpEntry> {
    let mut out: Vec<HelpEntry> = Vec::new();
    for item in items {
        let (id, summary, requires_argument) = match item {
            Value::String(id) => (id.as_str(), String::new(), false),
            Value::Object(command) => {
                if command.get("hidden").and_then(Value::as_bool) == Some(true) {
                    continue;
                }
                let Some(id) = command.get("id").and_then(Value::as_str) else {
                    continue;
                };
                let summary = ["summary", "description"]
                    .iter()
                    .filter_map(|key| command.get(*key).and_then(Value::as_str))
                    .find_map(|text| text.lines().map(str::trim).find(|l| !l.is_empty()))
                    .unwrap_or("")
                    .to_string();
                let required = ["args", "flags"]
                    .iter()
                    .filter_map(|key| command.get(*key))
                    .any(any_required);
                (id, summary, required)
            }
            _ => continue,
        };
        if !super::words::is_command_name(id) || out.iter().any(|e| e.name == id) {
            continue;
        }
        out.push(HelpEntry {
            name: id.to_string(),
            summary,
            requires_argument,
            path: vec![id.to_string()],
            group: false,
        });
    }
    let mut topics: Vec<HelpEntry> = Vec::new();
    for entry in &out {
        let segments: Vec<&str> = entry.name.split(':').collect();
        for end in 1..segments.len() {
            let topic = segments[..end].join(":");
            let known = out.iter().chain(&topics).any(|e| e.name == topic);
            if !known {
                topics.push(HelpEntry {
                    path: vec![topic.clone()],
                    name: topic,
                    group: true,
                    ..HelpEntry::default()
                });
            }
        }
    }
    out.extend(topics);
    out
}

/// oclif writes `args` and `flags` as objects keyed by name (older versions:
/// `args` as an array); any with `"required": true`.
fn any_required(value: &Value) -> bool {
    let required = |v: &Value| v.get("required").and_then(Value::as_bool) == Some(true);
    match value {
        Value::Object(map) => map.values().any(required),
        Value::Array(items) => items.iter().any(required),
        _ => false,
    }
}
