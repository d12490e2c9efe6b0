//! The command-line surface: clap definitions only.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use conform_core::command::{self, Partition, ReportFormat};

/// Prove whether a command-line tool is safe and reliable for AI agents to call.
///
/// Piped, every command prints one JSON ResponseEnvelope on stdout; on a terminal it
/// prints a readable report. Exit codes: 0 success, 2 invalid profile or arguments
/// (nothing ran), 4 at least one conformance check failed.
#[derive(Debug, Parser)]
#[command(name = "conform", version, propagate_version = true)]
pub struct Cli {
    /// Output format: an envelope when stdout is not a terminal, text when it is.
    #[arg(long, global = true, value_enum, default_value_t = Format::Auto)]
    pub format: Format,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// JSON envelope when piped (or under CI or NO_COLOR), text on a terminal.
    Auto,
    /// One JSON ResponseEnvelope.
    Json,
    /// Readable text.
    Text,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check profiles against the profile format without running anything.
    Validate {
        /// Profile files, or directories of *.json profiles.
        #[arg(required = true, value_name = "PROFILE")]
        profiles: Vec<PathBuf>,
    },
    /// Run every check of the catalog against the tools the profiles describe.
    Run {
        /// Profile files, or directories of *.json profiles.
        #[arg(required = true, value_name = "PROFILE")]
        profiles: Vec<PathBuf>,
        #[command(flatten)]
        flags: RunFlags,
    },
    /// Judge TOOL with no profile on disk: infer one as init does (from its manifest, else its --help), run it, report as run does; destructive probes only with --allow-destructive.
    Check(CheckArgs),
    /// Join the --json-report files of one run's shards (run --partition K/N) into the result of the whole run: the same envelope, levels, summary and exit code, and every report file; shards of different runs, or missing or repeated ones, are refused (exit 2).
    Merge {
        /// The shards' --json-report files, every shard once.
        #[arg(required = true, value_name = "REPORT")]
        reports: Vec<PathBuf>,
        #[command(flatten)]
        outputs: ReportArgs,
    },
    /// Make one recorded run again from a --json-report file (its argv, environment changes, stdin and sandbox) and print its exit and output beside what was recorded; RUN is the number the text report's Reproduce lines give.
    Replay {
        /// A file written by run or check --json-report.
        #[arg(value_name = "REPORT")]
        report: PathBuf,
        /// The run's number: every profile's runs counted in order from 0.
        #[arg(value_name = "RUN")]
        run: usize,
        /// Stop the run after this many seconds [default: the recorded duration plus 1, at least 5].
        #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
        timeout: Option<u64>,
    },
    /// List the checks: id, level, requirements, title.
    Checks {
        /// Only these checks (ids, as `conform run --only` takes them).
        #[arg(value_name = "CHECK", value_parser = check_names())]
        ids: Vec<String>,
        /// Only the checks a level-N verdict covers (level <= N).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=3))]
        level: Option<u8>,
        /// Instead, every requirement of the CLI Agent Spec (ID, priority, title) with the checks that judge it, or why none does; text is the table of docs/requirements.md.
        #[arg(long, conflicts_with_all = ["ids", "level"])]
        requirements: bool,
    },
    /// Print conform's own manifest: every command, flag and exit code (REQ-O-041).
    Manifest,
    /// Write a starting profile for TOOL from its manifest (or its --help text); overwriting a file needs --yes.
    Init(InitArgs),
    /// Print a shell completion script on stdout, always raw (never an envelope, also when piped): `conform completions bash > /etc/bash_completion.d/conform`.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: CompletionShell,
    },
    /// Print a JSON Schema: the profile format (default) or the --json-report document.
    Schema {
        /// Which document the schema describes.
        #[arg(value_enum, default_value_t = SchemaKind::Profile)]
        which: SchemaKind,
        /// Print the bare schema document instead of an envelope around it (for editors).
        #[arg(long)]
        raw: bool,
    },
}

/// `conform init [OPTIONS] [--] TOOL [ARGS...]`. TOOL's own arguments that start
/// with `-` need the `--`; conform's options may also follow TOOL.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// Write the profile to this file (its command is made relative to the file's directory); print it when absent.
    #[arg(long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Confirm overwriting an existing --output file.
    #[arg(long)]
    pub yes: bool,
    /// Print the profile that would be written (and whether it overwrites a file); write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Arguments that make TOOL print its manifest, split on whitespace [default: manifest].
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true, conflicts_with_all = ["manifest_file", "from_help"])]
    pub manifest_args: Option<String>,
    /// Read a saved manifest (a ManifestResponse, or an envelope around one) instead of running TOOL for it.
    #[arg(long, value_name = "FILE", conflicts_with = "from_help")]
    pub manifest_file: Option<PathBuf>,
    /// For tools without a manifest: read TOOL --help and its subcommands' help.
    #[arg(long)]
    pub from_help: bool,
    /// Limit for each run of TOOL, and the profile's timeout_seconds (1 to 5).
    #[arg(long, value_name = "SECONDS", default_value_t = command::MAX_TIMEOUT_SECONDS, value_parser = clap::value_parser!(u64).range(1..=command::MAX_TIMEOUT_SECONDS))]
    pub timeout: u64,
    /// Instead of a profile, give VS Code the profile schema: write .vscode/conformance-profile.schema.json and map conformance-profile.json to it in .vscode/settings.json (its other keys kept), in the current directory; with --dry-run, write nothing.
    #[arg(long, conflicts_with_all = ["tool", "output", "yes", "manifest_args", "manifest_file", "from_help"])]
    pub vscode: bool,
    /// The tool to describe (a path, or a command on PATH) and its leading arguments.
    #[arg(required_unless_present = "vscode", num_args = 1.., value_name = "TOOL")]
    pub tool: Vec<String>,
}

/// How `conform run` and `conform check` run and report.
#[derive(Debug, clap::Args)]
pub struct RunFlags {
    /// Report only these checks, or the group `reference` or `extension` (repeat, or separate with commas); only the runs they need are made.
    #[arg(long, value_name = "CHECK", value_delimiter = ',', value_parser = selectors())]
    pub only: Vec<String>,
    /// Leave out these checks, or the group `reference` or `extension` (repeat, or separate with commas).
    #[arg(long, value_name = "CHECK", value_delimiter = ',', value_parser = selectors())]
    pub skip: Vec<String>,
    /// Runs made at once [default: the number of CPUs].
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Bytes of stdout and of stderr kept per run (suffixes K, M, G); past it output is counted, not kept.
    #[arg(long, value_name = "BYTES", default_value = "16M", value_parser = parse_size)]
    pub capture_limit: usize,
    /// Run only shard K of N of the (profile, check) pairs, for CI matrices: the i-th pair, profiles then checks in catalog order, goes to shard (i mod N) + 1. Also spelled count:K/N.
    #[arg(long, value_name = "K/N", value_parser = clap::value_parser!(Partition))]
    pub partition: Option<Partition>,
    /// Print results as JSON lines instead of one envelope: a line per check as it is judged, numbered by _seq from 1, then one terminal line, a {"_summary": true, "_count": N} line (exit 0) or an error envelope with meta.items_emitted (exit 4 when checks failed, 130 on SIGINT).
    #[arg(long)]
    pub stream: bool,
    /// Start no further run after the first failed check; runs in progress finish, and the profiles cut short are reported with their checks skipped.
    #[arg(long)]
    pub fail_fast: bool,
    /// Keep first attempts only. By default a run whose outcome time decided (it hit its limit, its line N came after the exit, a pipe stayed held) while the machine kept it from the CPU for a quarter of its time or more is made again alone, and that attempt stands.
    #[arg(long)]
    pub no_rerun: bool,
    /// Text: every check, why each skipped, and every failing run with its shell line; by default the text shows the findings, the failing checks and one reproduction per finding.
    #[arg(long)]
    pub verbose: bool,
    #[command(flatten)]
    pub reports: ReportArgs,
}

/// `conform check [OPTIONS] [--] TOOL [ARGS...]`: as init, TOOL's own arguments that
/// start with `-` need the `--`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Also write the inferred profile (destructive probes included) to this file, with init --output's rules: its command relative to the file's directory, which every run is then made from; overwriting needs --yes.
    #[arg(long, value_name = "PATH")]
    pub save: Option<PathBuf>,
    /// Confirm overwriting an existing --save file.
    #[arg(long)]
    pub yes: bool,
    /// Also run the destructive probes the profile infers (without confirmation, expecting a refusal, then with their dry-run flag); without it they are listed as not run.
    #[arg(long)]
    pub allow_destructive: bool,
    /// Limit for each run of TOOL, while the profile is inferred and after, and the profile's timeout_seconds (1 to 120, as a profile accepts).
    #[arg(long, value_name = "SECONDS", default_value_t = command::MAX_TIMEOUT_SECONDS, value_parser = clap::value_parser!(u64).range(1..=command::MAX_CHECK_TIMEOUT_SECONDS))]
    pub timeout: u64,
    /// Judge several tools in one call: one command line per row of FILE (quoted as a shell quotes words; blank lines and # comments skipped), each with its own inferred profile and result, all in one pool.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["tool", "save"])]
    pub tools: Option<PathBuf>,
    /// Where the runs' network traffic goes: blackhole (every proxy variable at a listener that never answers, and each run in a network namespace of its own where the machine allows one; the default), namespace (the same, and exit 1 with the cause and the fix where no namespace can be made) or inherit (the machine's network; commands whose names say they mutate are then left out).
    #[arg(long, value_name = "WHERE", default_value = "blackhole", value_parser = ["blackhole", "namespace", "inherit"])]
    pub network: String,
    /// conform's whole wall time for TOOL, exploration included (90s, 2m, 1m30s): every command is surveyed (the runs that show prompts, waits, browsers, editors, pagers, the network, state) and all checks run in depth on the commands agents call first, one of each group and those the survey flagged, as far as the measured cost of a run allows; past it, what was made is judged (meta.partial). `none`: explore and judge every command in depth.
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_budget, conflicts_with = "tools")]
    pub budget: BudgetArg,
    /// Off a terminal, print a line on stderr as each phase begins (help calls, exploration runs, survey and depth) and at most one every 10 s between; without it stderr stays quiet. On a terminal a progress line is always shown.
    #[arg(long)]
    pub progress: bool,
    #[command(flatten)]
    pub flags: RunFlags,
    /// The tool to judge (a path, or a command on PATH) and its leading arguments.
    #[arg(required_unless_present = "tools", num_args = 1.., value_name = "TOOL")]
    pub tool: Vec<String>,
}

/// Report files `conform run` writes besides its output, each checked before anything
/// runs and written whole or not at all.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ReportArgs {
    /// Also write conform's full report (every run's evidence) to this JSON file; `conform schema report` describes it.
    #[arg(long, value_name = "PATH")]
    pub json_report: Option<PathBuf>,
    /// Also write a JUnit XML report (a testsuite per profile, a testcase per check) for GitLab, Jenkins and GitHub test reporters.
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Also write a SARIF 2.1.0 report (a result per failing run, located in the profile file) for code scanning.
    #[arg(long, value_name = "PATH")]
    pub sarif: Option<PathBuf>,
    /// Also write a Markdown summary (for $GITHUB_STEP_SUMMARY or a pull-request comment).
    #[arg(long, value_name = "PATH")]
    pub markdown: Option<PathBuf>,
    /// Also write an SVG badge: "agent-ready | level N", the highest level every profile passes.
    #[arg(long, value_name = "PATH")]
    pub badge: Option<PathBuf>,
    /// Also write an HTML scorecard: one self-contained page with a grid of profiles (or tools) by checks, each cell linked to its evidence.
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
}

impl ReportArgs {
    /// The requested reports, in a fixed order.
    pub fn requested(&self) -> Vec<(ReportFormat, PathBuf)> {
        [
            (ReportFormat::Json, &self.json_report),
            (ReportFormat::Junit, &self.junit),
            (ReportFormat::Sarif, &self.sarif),
            (ReportFormat::Markdown, &self.markdown),
            (ReportFormat::Badge, &self.badge),
            (ReportFormat::Html, &self.html),
        ]
        .into_iter()
        .filter_map(|(format, path)| path.clone().map(|p| (format, p)))
        .collect()
    }
}

/// The shells `conform completions` writes scripts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

impl CompletionShell {
    pub fn generator(self) -> clap_complete::Shell {
        match self {
            CompletionShell::Bash => clap_complete::Shell::Bash,
            CompletionShell::Zsh => clap_complete::Shell::Zsh,
            CompletionShell::Fish => clap_complete::Shell::Fish,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaKind {
    /// The profile format (ConformanceProfile).
    Profile,
    /// The document `conform run --json-report` writes.
    Report,
}

/// Check IDs and the groups `reference` and `extension`.
fn selectors() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(command::selectors())
}

pub fn check_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(command::check_ids())
}

/// `--budget`: a duration, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetArg(pub Option<std::time::Duration>);

/// `90s`, `2m`, `1m30s`, `1h`, plain seconds, or `none`.
fn parse_budget(text: &str) -> Result<BudgetArg, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(BudgetArg(None));
    }
    let bad = || format!("{text:?} is not a duration such as 90s, 2m or 1m30s, nor none");
    let mut seconds: u64 = 0;
    let mut digits = String::new();
    let mut units = 0;
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let factor = match c.to_ascii_lowercase() {
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(bad()),
        };
        let n: u64 = digits.parse().map_err(|_| bad())?;
        seconds = n
            .checked_mul(factor)
            .and_then(|n| seconds.checked_add(n))
            .ok_or_else(bad)?;
        digits.clear();
        units += 1;
    }
    if !digits.is_empty() {
        // Plain seconds, or seconds after minutes (`1m30`) are not guessed at.
        if units > 0 {
            return Err(bad());
        }
        seconds = digits.parse().map_err(|_| bad())?;
    } else if units == 0 {
        return Err(bad());
    }
    if seconds == 0 {
        return Err(format!(
            "--budget {text:?} leaves no time at all; give a duration such as 2m, or none"
        ));
    }
    Ok(BudgetArg(Some(std::time::Duration::from_secs(seconds))))
}

/// `16M`, `512K`, `1G` or plain bytes.
fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let n: usize = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a size such as 16M or 1048576"))?;
    let factor: usize = match unit
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return Err(format!("unknown size unit in {text:?}; use K, M or G")),
    };
    match n.checked_mul(factor) {
        Some(0) | None => Err(format!(
            "{text:?} must be at least 1 byte and fit in memory"
        )),
        Some(size) => Ok(size),
    }
}

/// clap merges a global option given before and after the subcommand, last value
/// winning; REQ-F-079 wants a conflicting repeat to be an error. Returns the message
/// when `--format` is given twice with different values.
pub fn conflicting_format(args: &[std::ffi::OsString]) -> Option<String> {
    let mut seen: Option<String> = None;
    let mut iter = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(arg) = iter.next() {
        if arg == "--" {
            break;
        }
        let value = match arg.strip_prefix("--format") {
            Some("") => iter.next().map(|v| v.into_owned()),
            Some(rest) => rest.strip_prefix('=').map(str::to_string),
            None => None,
        };
        if let Some(value) = value {
            match &seen {
                Some(first) if *first != value => {
                    return Some(format!(
                        "--format given twice with different values ({first} and {value}); give it once\n"
                    ))
                }
                _ => seen = Some(value),
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(
            parse_size("16M"),
            Ok(command::DEFAULT_CAPTURE_LIMIT),
            "the documented default"
        );
        assert_eq!(parse_size("512k"), Ok(512 * 1024));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("100"), Ok(100));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12X").is_err());
        assert!(parse_size("M").is_err());
    }

    #[test]
    fn budgets() {
        let secs = |n| Ok(BudgetArg(Some(std::time::Duration::from_secs(n))));
        assert_eq!(parse_budget("2m"), secs(120));
        assert_eq!(parse_budget("90s"), secs(90));
        assert_eq!(parse_budget("1m30s"), secs(90));
        assert_eq!(parse_budget("45"), secs(45));
        assert_eq!(parse_budget("1h"), secs(3600));
        assert_eq!(parse_budget("none"), Ok(BudgetArg(None)));
        for bad in ["", "2x", "m", "0s", "1m30", "-5s", "two"] {
            assert!(parse_budget(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_conflicting_format_is_found_in_any_spelling() {
        let args = |a: &[&str]| a.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert!(conflicting_format(&args(&[
            "conform",
            "--format",
            "json",
            "checks",
            "--format=text"
        ]))
        .is_some());
        assert!(conflicting_format(&args(&[
            "conform", "--format", "json", "checks", "--format", "json"
        ]))
        .is_none());
        assert!(conflicting_format(&args(&[
            "conform", "checks", "--", "--format", "a", "--format", "b"
        ]))
        .is_none());
    }
}
