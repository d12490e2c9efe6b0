//! Runs whose final shape depends on what earlier runs gave: the manifest's flags
//! and secret variables, a baseline's size or next cursor. The planner plans them
//! like any run, waiting for the runs they read; when they become ready the pool
//! completes their spec from those records ([`Derived::make`]), or leaves them
//! unmade when there is nothing to run (no such flag, a small baseline).

use std::time::Duration;

use serde_json::Value;

use super::kind::RunKind;
use super::{Records, RunIndex};
use crate::canary;
use crate::exec::{RunRecord, RunSpec};
use crate::manifest;

/// What a derived run reads, by plan index, and how it is completed.
#[derive(Debug, Clone)]
pub(crate) struct Derived {
    /// The probe's argv (without the profile's command), to find its command.
    pub argv: Vec<String>,
    /// The probe's stdin-closed run, which also gates it.
    pub baseline: RunIndex,
    /// The manifest run, when the profile has one.
    pub manifest: Option<RunIndex>,
    /// Another run of the same probe this one follows up (or, for a debug run,
    /// the `--help` run that lists its flag).
    pub earlier: Option<RunIndex>,
    /// The argv of every probe of the profile, for a run shaped by all their
    /// commands (the canary runs); empty otherwise.
    pub others: Vec<Vec<String>>,
    /// Completes the planned spec; `false`: the run is not needed.
    pub make: Make,
}

/// How a derived run's planned spec is completed; `false`: the run is not needed.
pub(crate) type Make = fn(&mut RunSpec, &Given<'_>) -> bool;

/// The records a derived run is completed from.
#[derive(Debug)]
pub(crate) struct Given<'r> {
    pub argv: &'r [String],
    pub baseline: Option<&'r RunRecord>,
    /// The manifest run's `data`, read leniently (validity is `manifest_valid`'s).
    pub manifest: Option<&'r Value>,
    pub earlier: Option<&'r RunRecord>,
    pub others: &'r [Vec<String>],
}

impl Derived {
    /// A run of the probe with `argv`, derived from its baseline and the manifest
    /// run, following up no other run.
    pub(crate) fn of(
        argv: &[String],
        baseline: RunIndex,
        manifest: Option<RunIndex>,
        make: Make,
    ) -> Derived {
        Derived {
            argv: argv.to_vec(),
            baseline,
            manifest,
            earlier: None,
            others: Vec::new(),
            make,
        }
    }

    /// The spec to run, or `None` when the run is not needed. `manifest` is the
    /// manifest run's `data` ([`manifest::data_of`]), which the caller reads once
    /// for every run derived from it.
    pub(crate) fn spec(
        &self,
        planned: &RunSpec,
        records: &Records,
        manifest: Option<&Value>,
    ) -> Option<RunSpec> {
        let record = |index: Option<RunIndex>| index.and_then(|i| records.get(i)?.as_ref());
        let given = Given {
            argv: &self.argv,
            baseline: record(Some(self.baseline)),
            manifest: self.manifest.and(manifest),
            earlier: record(self.earlier),
            others: &self.others,
        };
        let mut spec = planned.clone();
        (self.make)(&mut spec, &given).then_some(spec)
    }
}

/// How a kind of run is completed, for the kinds that are derived.
pub(crate) fn make_for(kind: RunKind) -> Option<Make> {
    Some(match kind {
        RunKind::SizeCap => size_cap,
        RunKind::Headless => headless,
        RunKind::PageLimit => page_limit,
        RunKind::PageNext => page_next,
        RunKind::PageBadCursor => page_bad_cursor,
        RunKind::TimeoutBlackHole => timeout,
        RunKind::GenericEnv => generic_env,
        RunKind::GenericEnvEach => generic_env_each,
        RunKind::Canary => canary,
        RunKind::DebugCanary => debug_canary,
        _ => return None,
    })
}

/// The smallest baseline stdout whose cap `output_size_cap` tests.
pub(crate) const SIZE_CAP_FROM: u64 = 2048;

/// The cursor no tool issues: `pagination_contract` expects it refused.
pub(crate) const BAD_CURSOR: &str = "!conform-not-a-cursor!";

/// The variables `generic_env_ignored` sets, with their values.
pub(crate) const GENERIC_ENV: [(&str, &str); 5] = [
    ("DEBUG", "1"),
    ("VERBOSE", "1"),
    ("LOG_LEVEL", "debug"),
    ("FORMAT", "plain"),
    ("OUTPUT", "plain"),
];

/// The output cap at half the baseline's bytes (rounded down), under every name the
/// planner set; no run when the baseline wrote less than [`SIZE_CAP_FROM`].
fn size_cap(spec: &mut RunSpec, given: &Given<'_>) -> bool {
    let Some(bytes) = given.baseline.map(|run| run.stdout.total_bytes) else {
        return false;
    };
    if bytes < SIZE_CAP_FROM {
        return false;
    }
    let half = (bytes / 2).to_string();
    // The shape's per-prefix names, which the planner left without a value.
    for (_, value) in spec
        .env_set
        .iter_mut()
        .filter(|(_, value)| value.is_empty())
    {
        value.clone_from(&half);
    }
    true
}

/// The declared secret and token variables unset, when the manifest names any.
fn headless(spec: &mut RunSpec, given: &Given<'_>) -> bool {
    if let Some(manifest) = given.manifest {
        let command = manifest::command_for(manifest, given.argv).map(|(_, entry)| entry);
        spec.env_remove
            .extend(manifest::secret_names(manifest, command));
    }
    true
}

/// The command's own flag `name`, if the manifest declares it.
fn local_flag<'m>(given: &Given<'_>, manifest: &'m Value, name: &str) -> Option<&'m Value> {
    let (_, command) = manifest::command_for(manifest, given.argv)?;
    manifest::local_flag(command, name)
}

/// `--limit 1` as planned, when the command declares `limit`.
fn page_limit(_: &mut RunSpec, given: &Given<'_>) -> bool {
    declares(given, "limit")
}

/// Whether the probe's command declares its own flag `name`.
fn declares(given: &Given<'_>, name: &str) -> bool {
    given
        .manifest
        .is_some_and(|manifest| local_flag(given, manifest, name).is_some())
}

fn page_next(spec: &mut RunSpec, given: &Given<'_>) -> bool {
    if !declares(given, "cursor") {
        return false;
    }
    let Some(next) = given.baseline.and_then(next_cursor) else {
        return false;
    };
    set_flag(&mut spec.args, "--cursor", &next);
    true
}

/// The cursor no tool issued, as planned, when the command declares `cursor`.
fn page_bad_cursor(_: &mut RunSpec, given: &Given<'_>) -> bool {
    declares(given, "cursor")
}

/// A baseline's `meta.pagination.next_cursor`, when it is a non-empty string.
pub(crate) fn next_cursor(run: &RunRecord) -> Option<String> {
    let envelope: Value = serde_json::from_slice(&run.stdout.bytes).ok()?;
    let next = envelope
        .get("meta")?
        .get("pagination")?
        .get("next_cursor")?;
    next.as_str().filter(|s| !s.is_empty()).map(str::to_string)
}

/// `--timeout V` with V one unit of the flag's type; no run without the flag.
fn timeout(spec: &mut RunSpec, given: &Given<'_>) -> bool {
    let Some(manifest) = given.manifest else {
        return false;
    };
    let Some((_, command)) = manifest::command_for(manifest, given.argv) else {
        return false;
    };
    let Some(flag) = manifest::flag(manifest, command, "timeout") else {
        return false;
    };
    let value = timeout_value(flag);
    // The tool must be done within V + 2 s: that is the run's limit, so a tool
    // still going is killed there and, like any run that hit its limit while
    // starved of CPU, made again alone.
    spec.limit = duration_of(&value) + TIMEOUT_SLACK;
    set_flag(&mut spec.args, "--timeout", &value);
    true
}

/// How long after its own `--timeout` a tool may take to give up.
pub(crate) const TIMEOUT_SLACK: Duration = Duration::from_secs(2);

/// A `--timeout` value as [`timeout_value`] makes it: a number of seconds, or one
/// with a unit (`ms`, `s`, `m`, `h`); anything else counts as seconds.
pub(crate) fn duration_of(value: &str) -> Duration {
    let digits = value.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let amount: f64 = digits.parse().unwrap_or(1.0);
    let seconds = match &value[digits.len()..] {
        "ms" => amount / 1000.0,
        "m" | "min" => amount * 60.0,
        "h" => amount * 3600.0,
        _ => amount,
    };
    Duration::try_from_secs_f64(seconds).unwrap_or(Duration::from_secs(1))
}

/// `1` for a numeric flag; for a string flag `1` and the unit of its default
/// (`300s` gives `1s`), else `1s`.
pub(crate) fn timeout_value(flag: &Value) -> String {
    match flag.get("type").and_then(Value::as_str) {
        Some("integer" | "number") => "1".into(),
        _ => {
            let unit = flag
                .get("default")
                .and_then(Value::as_str)
                .map(|default| default.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
                .filter(|unit| !unit.is_empty() && unit.chars().all(|c| c.is_ascii_alphabetic()))
                .unwrap_or("s");
            format!("1{unit}")
        }
    }
}

/// The generic variables the manifest does not declare; no run when it declares
/// them all.
fn generic_env(spec: &mut RunSpec, given: &Given<'_>) -> bool {
    if let Some(manifest) = given.manifest {
        let declared = manifest::declared_env_names(manifest);
        spec.env_set.retain(|(name, _)| !declared.contains(name));
    }
    !spec.env_set.is_empty()
}

/// One generic variable alone, only when the run with all of them differed from
/// the baseline (in exit, output or stderr lines), to name the culprits.
fn generic_env_each(spec: &mut RunSpec, given: &Given<'_>) -> bool {
    let (Some(all), Some(baseline)) = (given.earlier, given.baseline) else {
        return false;
    };
    // As the check compares them: exit, `data` without volatile keys (a duration
    // in `meta` differs between any two runs) or the raw bytes when stdout is no
    // JSON, and stderr lines.
    let output = |run: &RunRecord| {
        crate::data::stable_data_of(&run.stdout.bytes).ok_or_else(|| run.stdout.bytes.clone())
    };
    let differed = all.exit_code() != baseline.exit_code()
        || output(all) != output(baseline)
        || crate::lines::count(&all.stderr.bytes) > crate::lines::count(&baseline.stderr.bytes);
    if !differed {
        return false;
    }
    let set_in_all = |name: &str| {
        all.env_changes
            .iter()
            .any(|c| c.starts_with(&format!("{name}=")))
    };
    spec.env_set.iter().all(|(name, _)| set_in_all(name))
}

/// The canaries of the manifest's secret and token variables added to those the
/// planner set (every prefix's `_TOKEN`, `_API_KEY`, `_SECRET`, and `API_KEY` and
/// `TOKEN`), for every probe's command, and the sandbox told to look for each.
fn canary(spec: &mut RunSpec, given: &Given<'_>) -> bool {
    if let Some(manifest) = given.manifest {
        let mut names = manifest::secret_names(manifest, None);
        for prefix in manifest::env_prefixes(manifest) {
            names.extend(CANARY_SUFFIXES.map(|suffix| format!("{prefix}_{suffix}")));
        }
        for argv in given.others.iter().map(Vec::as_slice).chain([given.argv]) {
            let command = manifest::command_for(manifest, argv).map(|(_, entry)| entry);
            names.extend(manifest::secret_names(manifest, command));
        }
        for name in names {
            if !spec.env_set.iter().any(|(set, _)| *set == name) {
                let value = canary::value_for(&name);
                spec.env_set.push((name, value));
            }
        }
    }
    let planted: Vec<(String, String)> = spec
        .env_set
        .iter()
        .filter(|(_, value)| canary::is_canary(value))
        .cloned()
        .collect();
    if let Some(sandbox) = spec.sandbox.as_mut() {
        sandbox.needles = canary::needles(&planted);
    }
    true
}

/// What a tool's prefix is followed by in the canaries every canary run carries.
pub(crate) const CANARY_SUFFIXES: [&str; 3] = ["TOKEN", "API_KEY", "SECRET"];

/// The debug flags a debug run may add, where the tool lists them.
pub(crate) const DEBUG_FLAGS: [&str; 2] = ["--verbose", "--debug"];

/// A canary run with its debug switch; a flag only where the manifest (the root's
/// or the command's flags) or `--help` (the `earlier` run) lists it.
fn debug_canary(spec: &mut RunSpec, given: &Given<'_>) -> bool {
    canary(spec, given);
    // The per-prefix switch (`PREFIX_DEBUG=1`) also for the prefixes the manifest
    // shows, which the planner could not know.
    let per_prefix = spec
        .env_set
        .iter()
        .find(|(name, _)| name.ends_with("_DEBUG"))
        .map(|(_, value)| value.clone());
    if let (Some(value), Some(manifest)) = (per_prefix, given.manifest) {
        for prefix in manifest::env_prefixes(manifest) {
            let name = format!("{prefix}_DEBUG");
            if !spec.env_set.iter().any(|(set, _)| *set == name) {
                spec.env_set.push((name, value.clone()));
            }
        }
    }
    let Some(flag) = spec
        .args
        .last()
        .filter(|arg| DEBUG_FLAGS.contains(&arg.as_str()))
    else {
        return true;
    };
    let name = flag.trim_start_matches('-');
    let in_manifest = given.manifest.is_some_and(|manifest| {
        manifest
            .get("flags")
            .and_then(|flags| flags.get(name))
            .is_some()
            || manifest::command_for(manifest, given.argv)
                .is_some_and(|(_, command)| manifest::local_flag(command, name).is_some())
    });
    let in_help = given.earlier.is_some_and(|help| {
        lists_flag(&help.stdout.bytes, flag) || lists_flag(&help.stderr.bytes, flag)
    });
    in_manifest || in_help
}

/// Whether help text names `flag` as a word of its own (`--verbose`, not
/// `--verbose-http`).
fn lists_flag(text: &[u8], flag: &str) -> bool {
    let flag = flag.as_bytes();
    text.windows(flag.len()).enumerate().any(|(at, window)| {
        let word_char = |b: &u8| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_';
        window == flag
            && (at == 0 || !text.get(at - 1).is_some_and(word_char))
            && !text.get(at + flag.len()).is_some_and(word_char)
    })
}

/// How many manifest commands declaring a stdin cap get payload runs: the plan is
/// made before the manifest is read, so it holds this many slots.
pub(crate) const PAYLOAD_SLOTS: usize = 4;

/// The payload runs' completions, one pair (over the cap, half of it) per slot.
pub(crate) const PAYLOAD_MAKES: [(Make, Make); PAYLOAD_SLOTS] = [
    (payload::<0, true>, payload::<0, false>),
    (payload::<1, true>, payload::<1, false>),
    (payload::<2, true>, payload::<2, false>),
    (payload::<3, true>, payload::<3, false>),
];

/// The safe manifest commands with a stdin `max_bytes`, in manifest order: their
/// key and cap. Only safe commands are run: the profile does not probe them.
pub(crate) fn capped_stdin_commands(manifest: &Value) -> Vec<(String, u64)> {
    manifest
        .get("commands")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, command)| command.get("danger_level").and_then(Value::as_str) == Some("safe"))
        .filter_map(|(key, command)| {
            let cap = command.get("stdin")?.get("max_bytes")?.as_u64()?;
            Some((key.clone(), cap))
        })
        .collect()
}

/// The `SLOT`th capped command (see [`capped_stdin_commands`]) run with one byte
/// over its cap (`OVER`) or half of it on stdin; no run without it.
fn payload<const SLOT: usize, const OVER: bool>(spec: &mut RunSpec, given: &Given<'_>) -> bool {
    let Some((key, cap)) = given
        .manifest
        .and_then(|manifest| capped_stdin_commands(manifest).into_iter().nth(SLOT))
    else {
        return false;
    };
    let len = if OVER { cap.saturating_add(1) } else { cap / 2 };
    let Ok(len) = usize::try_from(len) else {
        return false;
    };
    spec.args.extend(key.split('.').map(str::to_string));
    spec.stdin = crate::exec::StdinMode::Payload(len);
    true
}

/// `flag value` in `args`: an occurrence's value replaced (`--flag v`,
/// `--flag=v`), else both added last.
pub(crate) fn set_flag(args: &mut Vec<String>, flag: &str, value: &str) {
    let joined = format!("{flag}=");
    if let Some(at) = args.iter().position(|a| a == flag) {
        if at + 1 < args.len() {
            args[at + 1] = value.to_string();
            return;
        }
        args.push(value.to_string());
        return;
    }
    if let Some(arg) = args.iter_mut().find(|a| a.starts_with(&joined)) {
        *arg = format!("{joined}{value}");
        return;
    }
    args.extend([flag.to_string(), value.to_string()]);
}

/// The names a tool's own variables start with (REQ-F-073): the profile's `tool`
/// and the basenames (extension dropped) of the command's first and last
/// elements, uppercased, every other character as `_`.
pub(crate) fn prefixes(tool: &str, command: &[String]) -> Vec<String> {
    let base = |path: &str| {
        let name = path.rsplit('/').next().unwrap_or(path);
        match name.rsplit_once('.') {
            Some((stem, _)) if !stem.is_empty() => stem.to_string(),
            _ => name.to_string(),
        }
    };
    let mut out: Vec<String> = Vec::new();
    let candidates = std::iter::once(tool.to_string())
        .chain(command.first().map(|c| base(c)))
        .chain(command.last().map(|c| base(c)));
    for name in candidates {
        let prefix: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        if !prefix.is_empty() && !out.contains(&prefix) {
            out.push(prefix);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_flag_in_argv_gets_its_value_replaced_else_goes_last() {
        let mut a = args(&["list", "--limit", "5", "x"]);
        set_flag(&mut a, "--limit", "1");
        assert_eq!(a, args(&["list", "--limit", "1", "x"]));
        let mut a = args(&["list", "--limit=5"]);
        set_flag(&mut a, "--limit", "1");
        assert_eq!(a, args(&["list", "--limit=1"]));
        let mut a = args(&["list"]);
        set_flag(&mut a, "--cursor", "abc");
        assert_eq!(a, args(&["list", "--cursor", "abc"]));
    }

    #[test]
    fn the_timeout_is_one_unit_of_the_flags_type() {
        assert_eq!(timeout_value(&json!({"type": "integer"})), "1");
        assert_eq!(
            timeout_value(&json!({"type": "number", "default": 30})),
            "1"
        );
        assert_eq!(
            timeout_value(&json!({"type": "string", "default": "300s"})),
            "1s"
        );
        assert_eq!(
            timeout_value(&json!({"type": "string", "default": "2m"})),
            "1m"
        );
        assert_eq!(
            timeout_value(&json!({"type": "string", "default": "1.5ms"})),
            "1ms"
        );
        assert_eq!(timeout_value(&json!({"type": "string"})), "1s");
        assert_eq!(
            timeout_value(&json!({"type": "string", "default": "30"})),
            "1s"
        );
    }

    #[test]
    fn the_timeout_run_must_end_within_its_value_and_two_seconds() {
        assert_eq!(duration_of("1s"), Duration::from_secs(1));
        assert_eq!(duration_of("1"), Duration::from_secs(1));
        assert_eq!(duration_of("1ms"), Duration::from_millis(1));
        assert_eq!(duration_of("1m"), Duration::from_secs(60));
    }

    #[test]
    fn prefixes_come_from_the_tool_and_the_command() {
        assert_eq!(
            prefixes("democli", &args(&["../../bin/democli"])),
            ["DEMOCLI"]
        );
        assert_eq!(
            prefixes("my-tool", &args(&["python3", "-m", "pkg/cli.py"])),
            ["MY_TOOL", "PYTHON3", "CLI"]
        );
    }
}
