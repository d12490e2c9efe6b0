//! The `conform` command line: parse arguments, call the engine's commands, exit.

mod cli;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use serde_json::json;

use cli::args::{CheckArgs, Cli, Command, CompletionShell, Format, InitArgs, RunFlags, SchemaKind};
use conform_core::command::{
    self, CheckRequest, InitRequest, InitSource, Output, RunRequest, ToolsRequest,
};
use conform_core::{Cancel, ExitStatus};

fn main() -> ExitCode {
    let started = Instant::now();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(message) = cli::args::conflicting_format(&args) {
        let error = clap::Error::raw(clap::error::ErrorKind::ArgumentConflict, message);
        return usage_error(
            error.with_cmd(&<Cli as clap::CommandFactory>::command()),
            started,
        );
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(error) => return usage_error(error, started),
    };
    let json_output = match cli.format {
        Format::Json => true,
        Format::Text => false,
        Format::Auto => auto_json(),
    };
    let out = Output::new(json_output, started);
    let status = match cli.command {
        Command::Validate { profiles } => command::validate(&profiles, &out),
        Command::Schema { which, raw } => {
            let which = match which {
                SchemaKind::Profile => command::SchemaKind::Profile,
                SchemaKind::Report => command::SchemaKind::Report,
            };
            command::schema(which, raw, &out)
        }
        Command::Checks {
            requirements: true, ..
        } => command::requirements(&out),
        Command::Checks { ids, level, .. } => command::checks(&ids, level, &out),
        Command::Manifest => command::print_envelope(cli::manifest::manifest(), &out),
        Command::Init(args) => {
            prepare_runs();
            init(args, &out)
        }
        Command::Completions { shell } => completions(shell),
        Command::Run { profiles, flags } => {
            prepare_runs();
            let request = run_request(profiles, flags);
            cli::signals::cancel_on_interrupt(&request.cancel);
            command::run(&request, &out)
        }
        Command::Replay {
            report,
            run,
            timeout,
        } => {
            command::enter_user_namespace();
            let request = command::ReplayRequest {
                report,
                run,
                timeout: timeout.map(std::time::Duration::from_secs),
            };
            command::replay(&request, &out)
        }
        Command::Merge { reports, outputs } => {
            let request = command::MergeRequest {
                reports,
                outputs: outputs.requested(),
            };
            command::merge(&request, &out)
        }
        Command::Check(CheckArgs {
            tools: Some(file),
            timeout,
            allow_destructive,
            network,
            flags,
            ..
        }) => {
            prepare_runs();
            if let Some(refused) = require_namespace(&network, &out) {
                return ExitCode::from(refused.code() as u8);
            }
            let request = ToolsRequest {
                file,
                timeout_seconds: timeout,
                allow_destructive,
                inherit_network: network == "inherit",
                run: run_request(Vec::new(), flags),
            };
            cli::signals::cancel_on_interrupt(&request.run.cancel);
            command::check_tools(&request, &out)
        }
        Command::Check(args) => {
            prepare_runs();
            if let Some(refused) = require_namespace(&args.network, &out) {
                return ExitCode::from(refused.code() as u8);
            }
            let request = CheckRequest {
                tool: args.tool,
                timeout_seconds: args.timeout,
                save: args.save,
                yes: args.yes,
                allow_destructive: args.allow_destructive,
                inherit_network: args.network == "inherit",
                budget: args.budget.0,
                progress: args.progress,
                run: run_request(Vec::new(), args.flags),
            };
            // A Ctrl-C stops the tool run in progress, while inferring or running.
            cli::signals::cancel_on_interrupt(&request.run.cancel);
            command::check(&request, &out)
        }
    };
    report_orphans(&command::end_orphans());
    ExitCode::from(status.code() as u8)
}

/// Before the first tool starts, and before any thread (a user namespace is refused
/// to a process with threads): conform enters a user namespace where it needs one to
/// give its runs network namespaces, and becomes the subreaper of what its tools
/// leave behind, so that no process of a tool outlives it (it starts nothing else,
/// so every process below it is a tool's). Where the system has no subreapers, such
/// processes go to init as before.
fn prepare_runs() {
    command::enter_user_namespace();
    let _ = command::adopt_orphans();
}

/// `--network namespace` where no namespace can be made: the refusal, reported.
fn require_namespace(network: &str, out: &Output) -> Option<conform_core::ExitStatus> {
    (network == "namespace")
        .then(|| command::require_namespace(out))
        .flatten()
}

/// The tools' processes killed once every run was over, which no run's evidence
/// lists: named on stderr, where people and CI logs see them.
fn report_orphans(killed: &[command::Orphan]) {
    if let Some(line) = orphans_line(killed) {
        eprintln!("{line}");
    }
}

/// One line naming what was killed: each command line once, the most frequent
/// first, with its pids (heroku leaves dozens of the same two workers, and a
/// command line repeated for each read as noise).
fn orphans_line(killed: &[command::Orphan]) -> Option<String> {
    if killed.is_empty() {
        return None;
    }
    let mut groups: Vec<(&str, Vec<i32>)> = Vec::new();
    for orphan in killed {
        match groups
            .iter_mut()
            .find(|(cmdline, _)| *cmdline == orphan.cmdline)
        {
            Some((_, pids)) => pids.push(orphan.pid),
            None => groups.push((&orphan.cmdline, vec![orphan.pid])),
        }
    }
    // Stable: command lines as frequent as each other keep the order they came in.
    groups.sort_by_key(|(_, pids)| std::cmp::Reverse(pids.len()));
    let named: Vec<String> = groups
        .iter()
        .map(|(cmdline, pids)| {
            let shown = pids
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let pids = match pids.len() {
                1 => format!("pid {shown}"),
                n => format!("{n} of them, pids {shown}"),
            };
            match *cmdline {
                "" => pids,
                cmdline => format!("{cmdline} ({pids})"),
            }
        })
        .collect();
    Some(format!(
        "conform: killed {} process{} the tools left running: {}",
        killed.len(),
        if killed.len() == 1 { "" } else { "es" },
        named.join("; ")
    ))
}

/// The run flags as a request, for `conform run` (with its profiles) and `conform
/// check` (without).
fn run_request(profiles: Vec<std::path::PathBuf>, flags: RunFlags) -> RunRequest {
    RunRequest {
        profiles,
        only: flags.only,
        skip: flags.skip,
        jobs: flags.jobs.map(usize::from),
        capture_limit: flags.capture_limit,
        partition: flags.partition,
        stream: flags.stream,
        fail_fast: flags.fail_fast,
        no_rerun: flags.no_rerun,
        reports: flags.reports.requested(),
        verbose: flags.verbose,
        cancel: Cancel::new(),
    }
}

/// REQ-F-003: JSON when stdout is not a terminal, or under CI or NO_COLOR.
fn auto_json() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    !std::io::stdout().is_terminal() || set("CI") || set("NO_COLOR")
}

/// Bad arguments exit 2 with an envelope when piped; `--help` and `--version` exit 0
/// and stay off stdout when it is not a terminal (REQ-F-048).
fn usage_error(error: clap::Error, started: Instant) -> ExitCode {
    use clap::error::ErrorKind;
    let piped = auto_json();
    let out = Output::new(piped, started);
    let status = match error.kind() {
        // Piped, the version is one envelope on stdout, where an agent reads it
        // (REQ-F-068).
        ErrorKind::DisplayVersion if piped => command::print_envelope(
            json!({ "name": "conform", "version": env!("CARGO_PKG_VERSION") }),
            &out,
        ),
        // Bare `conform` shows the help and succeeds (REQ-F-068): asking a tool what
        // it is must work. Piped, the help goes to stderr and stdout gets an envelope
        // that says so.
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand if piped => {
            eprint!("{}", error.render());
            command::print_envelope(
                json!({ "help": "shown on stderr; see `conform --help`" }),
                &out,
            )
        }
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let text = error.render().to_string();
            if piped {
                eprint!("{text}");
                ExitStatus::Success
            } else {
                command::print_text(&text)
            }
        }
        _ if piped => {
            let usage = error.render().to_string();
            let first = usage
                .lines()
                .next()
                .unwrap_or("invalid arguments")
                .trim_start_matches("error: ");
            command::usage_error(first, usage.trim_end(), &out)
        }
        _ => {
            let _ = error.print();
            ExitStatus::InvalidInput
        }
    };
    ExitCode::from(status.code() as u8)
}

/// `conform completions SHELL`: the script itself, for the shell to source; an
/// envelope around it would break it, so it is printed raw even when piped.
fn completions(shell: CompletionShell) -> ExitStatus {
    let mut command = <Cli as clap::CommandFactory>::command();
    let mut script = Vec::new();
    clap_complete::generate(shell.generator(), &mut command, "conform", &mut script);
    command::print_text(&String::from_utf8_lossy(&script))
}

/// `conform init`: the arguments as a request; the warnings (skipped commands and
/// why) go to the envelope and to stderr.
fn init(args: InitArgs, out: &Output) -> ExitStatus {
    if args.vscode {
        // The editor reads .vscode/ from the workspace root: where conform runs.
        return command::init_vscode(std::path::Path::new("."), args.dry_run, out);
    }
    let source = match (args.from_help, args.manifest_file, args.manifest_args) {
        (true, _, _) => InitSource::Help,
        (false, Some(file), _) => InitSource::ManifestFile(file),
        (false, None, Some(text)) => {
            InitSource::Manifest(text.split_whitespace().map(str::to_string).collect())
        }
        (false, None, None) => InitSource::Manifest(vec!["manifest".into()]),
    };
    let cancel = Cancel::new();
    // A Ctrl-C stops the tool run in progress (its own process group) too.
    cli::signals::cancel_on_interrupt(&cancel);
    let request = InitRequest {
        tool: args.tool,
        source,
        timeout_seconds: args.timeout,
        output: args.output,
        yes: args.yes,
        dry_run: args.dry_run,
        cancel,
    };
    command::init(&request, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orphan(pid: i32, cmdline: &str) -> command::Orphan {
        command::Orphan {
            pid,
            cmdline: cmdline.to_string(),
        }
    }

    #[test]
    fn killed_orphans_are_named_once_per_command_line_with_a_count() {
        let mut killed = vec![orphan(7, "sleep 60")];
        killed.extend((10..15).map(|pid| orphan(pid, "node telemetry.js")));
        killed.push(orphan(20, ""));
        assert_eq!(
            orphans_line(&killed).as_deref(),
            Some(
                "conform: killed 7 processes the tools left running: \
                 node telemetry.js (5 of them, pids 10, 11, 12, 13, 14); \
                 sleep 60 (pid 7); pid 20"
            )
        );
        assert_eq!(orphans_line(&[]), None);
    }
}
