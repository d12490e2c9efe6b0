//! Profile validation: every rule of the profile format, plus the seed's "common
//! mistakes", checked on the raw JSON document so that *all* violations are reported
//! at once, each with the JSON pointer of the offending value.

use serde_json::{Map, Value};

use super::model::ProbeKind;
use super::patch::PatchOperation;
use super::pointer::child;

/// One thing wrong with a profile.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// JSON pointer of the offending (or missing) value, `""` for the whole document.
    pub pointer: String,
    /// What is wrong, in the profile author's terms.
    pub message: String,
    /// How to fix it.
    pub fix: String,
    /// 1-based line and column of the offending value, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column, in characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The rule is conform's own: the reference kit accepts this and runs the
    /// profile. The message says so and names the README's row.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stricter_than_reference: bool,
    /// The fix as JSON Patch operations, when it is mechanical; empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub patch: Vec<PatchOperation>,
}

impl Violation {
    pub(crate) fn new(
        pointer: impl Into<String>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Violation {
            pointer: pointer.into(),
            message: message.into(),
            fix: fix.into(),
            line: None,
            column: None,
            stricter_than_reference: false,
            patch: Vec::new(),
        }
    }

    /// Mark the rule as conform's own, stricter than the reference kit; `row` is the
    /// row of the README's table of differences from the kit that states it.
    pub(crate) fn stricter_than_reference(mut self, row: &str) -> Self {
        self.stricter_than_reference = true;
        self.message.push_str(&format!(
            ". This rule is conform's own, stricter than the reference kit, which runs this profile as it is: see the table of differences from the reference kit in conform's README, row \"{row}\""
        ));
        self
    }

    pub(crate) fn with_patch(mut self, patch: Vec<PatchOperation>) -> Self {
        self.patch = patch;
        self
    }
}

/// Flags that confirm a destructive action. The kit never deletes on purpose, so a
/// profile that contains one is rejected wherever the kit would pass it to the tool.
pub(crate) const CONFIRMATION_FLAGS: &[&str] = &[
    "--yes",
    "-y",
    "--force",
    "--confirm",
    "--confirm-destructive",
    "--assume-yes",
    "--auto-approve",
    "--live",
];

/// `-f` is `--force` for many tools but `--file` for others: refused in destructive probes only.
const DESTRUCTIVE_ONLY_CONFIRMATION_FLAGS: &[&str] = &["-f"];

/// Values of `--format`/`--output`/`-o` that select an output format.
const FORMAT_NAMES: &[&str] = &[
    "json",
    "jsonl",
    "ndjson",
    "json-lines",
    "jsonlines",
    "plain",
    "text",
    "txt",
    "tsv",
    "csv",
    "yaml",
    "yml",
    "table",
    "human",
    "pretty",
    "raw",
    "markdown",
    "md",
    "xml",
];

const ROOT_FIELDS: &[&str] = &[
    "schema_version",
    "tool",
    "command",
    "timeout_seconds",
    "manifest",
    "argument_order",
    "probes",
];
const ROOT_REQUIRED: &[&str] = &[
    "schema_version",
    "tool",
    "command",
    "timeout_seconds",
    "probes",
];
const ORDER_FIELDS: &[&str] = &[
    "command_path",
    "local_args",
    "global_flag",
    "value",
    "alternate_value",
    "positional",
];
const ORDER_REQUIRED: &[&str] = &[
    "command_path",
    "local_args",
    "global_flag",
    "value",
    "alternate_value",
];
const PROBE_FIELDS: &[&str] = &[
    "name",
    "argv",
    "kind",
    "dry_run_flag",
    "deadline_seconds",
    "signal",
    "after_lines",
];
const PROBE_REQUIRED: &[&str] = &["name", "argv", "kind"];
const ORDER_AT: &str = "/argument_order";
const STREAM_ONLY_FIELDS: &[&str] = &["deadline_seconds", "signal", "after_lines"];

/// The row of the README's table of differences from the reference kit that states
/// the seed's "common mistakes" as profile errors.
const COMMON_MISTAKES: &str = "common mistakes";

/// The longest limit a profile may set, in seconds.
pub(super) const MAX_LIMIT_SECONDS: f64 = 120.0;

/// Check a parsed profile document against every rule; an empty result means valid
/// (command resolution aside, which needs the file system: see `load`).
pub(crate) fn validate_document(doc: &Value) -> Vec<Violation> {
    let mut v = Validator::default();
    v.root(doc);
    v.violations
}

#[derive(Default)]
struct Validator {
    violations: Vec<Violation>,
}

impl Validator {
    fn push(&mut self, pointer: &str, message: impl Into<String>, fix: impl Into<String>) {
        self.violations.push(Violation::new(pointer, message, fix));
    }

    fn push_violation(&mut self, violation: Violation) {
        self.violations.push(violation);
    }

    fn root(&mut self, doc: &Value) {
        let Some(obj) = doc.as_object() else {
            self.push(
                "",
                format!("the profile must be a JSON object, found {}", describe(doc)),
                "start from the example in the profile format: { \"schema_version\": \"1.0\", \"tool\": ..., \"command\": [...], \"timeout_seconds\": 5, \"probes\": [...] }",
            );
            return;
        };
        self.fields(obj, "", ROOT_FIELDS, ROOT_REQUIRED, "the profile");

        if let Some(version) = obj.get("schema_version") {
            if version.as_str() != Some("1.0") {
                self.push(
                    "/schema_version",
                    format!(
                        "schema_version must be the string \"1.0\", found {}",
                        describe(version)
                    ),
                    "set \"schema_version\": \"1.0\"",
                );
            }
        }
        if let Some(tool) = obj.get("tool") {
            if self.string(tool, "/tool") == Some("") {
                self.push(
                    "/tool",
                    "tool is empty: it is the name reports show for the tool under test",
                    "give the tool's display name, e.g. \"democli\"",
                );
            }
        }
        let global_flag = obj
            .get("argument_order")
            .and_then(|o| o.get("global_flag"))
            .and_then(Value::as_str);
        if let Some(command) = obj.get("command") {
            if let Some(items) = self.string_array(command, "/command") {
                if items.is_empty() {
                    self.push(
                        "/command",
                        "command is empty: the kit needs at least the program to run",
                        "give the program as the first element, e.g. [\"./bin/mytool\"] or [\"mytool\"]",
                    );
                }
                for (i, _) in items.iter().enumerate().filter(|(_, a)| a.is_empty()) {
                    let (message, fix) = if i == 0 {
                        (
                            "command[0] is empty: it is the program to run".to_string(),
                            "give the program, e.g. \"./bin/mytool\" or \"mytool\"",
                        )
                    } else {
                        (
                            format!("command[{i}] is empty: the profile format allows no empty argument"),
                            "remove the empty string from command",
                        )
                    };
                    self.push(&child("/command", i), message, fix);
                }
                // command prefixes every run, so its arguments reach every probe.
                self.confirmation_flags(&items, "/command", Place::Command);
                self.format_flags(&items, "/command", global_flag, Place::Command);
            }
        }
        if let Some(timeout) = obj.get("timeout_seconds") {
            self.limit_seconds(timeout, "/timeout_seconds", "timeout_seconds");
        }
        if let Some(manifest) = obj.get("manifest") {
            if let Some(items) = self.string_array(manifest, "/manifest") {
                self.confirmation_flags(&items, "/manifest", Place::Manifest);
            }
        }
        if let Some(order) = obj.get("argument_order") {
            let probes = obj
                .get("probes")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            self.argument_order(order, probes, global_flag);
        }
        if let Some(probes) = obj.get("probes") {
            self.probes(probes, global_flag);
        }
    }

    /// Unknown and missing fields of one object.
    fn fields(
        &mut self,
        obj: &Map<String, Value>,
        at: &str,
        known: &[&str],
        required: &[&str],
        what: &str,
    ) {
        for key in obj.keys() {
            if !known.contains(&key.as_str()) {
                let fix = match closest(key, known) {
                    Some(suggestion) => format!(
                        "did you mean \"{suggestion}\"? Known fields: {}",
                        known.join(", ")
                    ),
                    None => format!("remove it; known fields: {}", known.join(", ")),
                };
                self.push(
                    &child(at, key),
                    format!("unknown field \"{key}\" in {what}"),
                    fix,
                );
            }
        }
        for key in required {
            if !obj.contains_key(*key) {
                self.push(
                    &child(at, key),
                    format!("{what} is missing the required field \"{key}\""),
                    format!("add \"{key}\""),
                );
            }
        }
    }

    fn string<'a>(&mut self, value: &'a Value, at: &str) -> Option<&'a str> {
        match value.as_str() {
            Some(s) => Some(s),
            None => {
                self.push(
                    at,
                    format!("expected a string, found {}", describe(value)),
                    "write it as a JSON string",
                );
                None
            }
        }
    }

    /// An array of strings; reports every non-string element.
    fn string_array<'a>(&mut self, value: &'a Value, at: &str) -> Option<Vec<&'a str>> {
        let Some(items) = value.as_array() else {
            self.push(
                at,
                format!("expected an array of strings, found {}", describe(value)),
                "write it as a JSON array of strings, one argument per element, e.g. [\"deployments\", \"list\"]",
            );
            return None;
        };
        let mut strings = Vec::with_capacity(items.len());
        let mut all = true;
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(s) => strings.push(s),
                None => {
                    all = false;
                    self.push(
                        &child(at, i),
                        format!("expected a string argument, found {}", describe(item)),
                        "quote it: every argument is a JSON string",
                    );
                }
            }
        }
        all.then_some(strings)
    }

    /// A number in (0, 120].
    fn limit_seconds(&mut self, value: &Value, at: &str, name: &str) {
        match value.as_f64().filter(|_| value.is_number()) {
            Some(n) if n > 0.0 && n <= MAX_LIMIT_SECONDS => {}
            Some(n) => self.push(
                at,
                format!("{name} must be greater than 0 and at most 120, found {n}"),
                "use a short limit such as 5: the hang checks rely on it",
            ),
            None => self.push(
                at,
                format!(
                    "{name} must be a number of seconds, found {}",
                    describe(value)
                ),
                "write it as a number, e.g. 5",
            ),
        }
    }

    fn argument_order(&mut self, order: &Value, probes: &[Value], global_flag: Option<&str>) {
        let at = ORDER_AT;
        let Some(obj) = order.as_object() else {
            self.push(
                at,
                format!("argument_order must be an object, found {}", describe(order)),
                "give command_path, local_args, global_flag, value and alternate_value, or remove argument_order to skip the check",
            );
            return;
        };
        self.fields(obj, at, ORDER_FIELDS, ORDER_REQUIRED, "argument_order");
        let probes: Vec<(usize, ProbeView)> = probes
            .iter()
            .enumerate()
            .filter_map(|(i, p)| ProbeView::of(p).map(|view| (i, view)))
            .collect();
        let destructive = destructive_target(obj, &probes);
        let repair = OrderRepair::of(obj, &probes, global_flag, destructive.is_some());
        let place = Place::ArgumentOrder {
            repair: &repair,
            on_destructive: destructive.is_some(),
        };
        for key in ["command_path", "local_args"] {
            if let Some(value) = obj.get(key) {
                let here = child(at, key);
                if let Some(items) = self.string_array(value, &here) {
                    self.confirmation_flags(&items, &here, place);
                    self.order_arguments(key, &items, &here);
                }
            }
        }
        let mut strings = [None, None];
        for (slot, key) in ["value", "alternate_value"].iter().enumerate() {
            if let Some(value) = obj.get(*key) {
                let here = child(at, key);
                strings[slot] = self.string(value, &here);
                if strings[slot] == Some("") {
                    self.push(
                        &here,
                        format!("{key} is empty: it is the value the kit gives global_flag"),
                        "give a value the global option accepts, e.g. \"json\" for value and \"plain\" for alternate_value",
                    );
                }
            }
        }
        if let Some(flag) = obj
            .get("global_flag")
            .and_then(|v| self.string(v, &child(at, "global_flag")))
        {
            if !is_long_option_name(flag) {
                self.push(
                    &child(at, "global_flag"),
                    format!("global_flag must be the long name of a global option, found {}: two dashes, a lowercase letter, then lowercase letters, digits or dashes (the published pattern ^--[a-z][a-z0-9-]*$)", describe(&Value::from(flag))),
                    "give the name alone, without a value: \"--format\", with the values in value and alternate_value",
                );
            }
        }
        if let Some(positional) = obj
            .get("positional")
            .and_then(|v| self.string(v, &child(at, "positional")))
        {
            if positional.is_empty() || positional.starts_with('-') {
                self.push(
                    &child(at, "positional"),
                    format!("positional must be a non-empty argument that does not start with \"-\", found {}: the kit places local_args after it, so it cannot be an option", describe(&Value::from(positional))),
                    "give a value command_path accepts as a positional, e.g. \"staging\", or remove positional",
                );
            }
        }
        if let [Some(value), Some(alternate)] = strings {
            if value == alternate {
                self.push(
                    "/argument_order/alternate_value",
                    format!("alternate_value must differ from value; both are \"{value}\""),
                    "pick another accepted value whose stdout differs, such as \"plain\" when value is \"json\"",
                );
            }
        }
        if let Some((pointer, what)) = destructive {
            self.push_violation(
                Violation::new(
                    pointer,
                    format!(
                        "argument_order names a destructive command: {what}. The profile format defines command_path as the \"Path of a side-effect-free command\", and the kit runs it for real several times (once for each placement of global_flag, and more)"
                    ),
                    repair.fix(),
                )
                .stricter_than_reference(COMMON_MISTAKES)
                .with_patch(repair.patch()),
            );
        }
    }

    /// The published schema's counts and lengths of command_path and local_args.
    fn order_arguments(&mut self, key: &str, items: &[&str], at: &str) {
        if key == "local_args" {
            if items.len() < 2 {
                self.push(
                    at,
                    format!("local_args must hold a command-local option and its value, at least two arguments; found {}", items.len()),
                    "give an option of command_path's command and a value that changes its output, e.g. [\"--limit\", \"5\"]",
                );
            }
            return;
        }
        if items.is_empty() {
            self.push(
                at,
                "command_path is empty: it names the side-effect-free command argument_order runs",
                "give the command's path, e.g. [\"deployments\", \"list\"]",
            );
        }
        for (i, _) in items.iter().enumerate().filter(|(_, a)| a.is_empty()) {
            self.push(
                &child(at, i),
                format!("command_path[{i}] is empty: the profile format allows no empty word in a command's path"),
                "remove the empty string; command_path holds the command's words, e.g. [\"deployments\", \"list\"]",
            );
        }
    }

    fn probes(&mut self, probes: &Value, global_flag: Option<&str>) {
        let Some(items) = probes.as_array() else {
            self.push(
                "/probes",
                format!(
                    "probes must be an array of probe objects, found {}",
                    describe(probes)
                ),
                "write probes as [ { \"name\": ..., \"argv\": [...], \"kind\": \"read\" }, ... ]",
            );
            return;
        };
        if items.is_empty() {
            self.push(
                "/probes",
                "probes is empty: with no probe to run, no check can judge the tool",
                "add a read probe for a side-effect-free command, e.g. { \"name\": \"list\", \"argv\": [\"list\"], \"kind\": \"read\" }",
            );
        }
        let mut seen: Vec<(&str, usize)> = Vec::new();
        for (i, probe) in items.iter().enumerate() {
            let at = child("/probes", i);
            let Some(obj) = probe.as_object() else {
                self.push(
                    &at,
                    format!("a probe must be an object, found {}", describe(probe)),
                    "give name, argv and kind",
                );
                continue;
            };
            let name = obj
                .get("name")
                .and_then(|n| self.string(n, &child(&at, "name")));
            if name == Some("") {
                self.push(
                    &child(&at, "name"),
                    "the probe's name is empty: names label the evidence",
                    "give the probe a short unique name, e.g. \"list deployments\"",
                );
            } else if let Some(name) = name {
                match seen.iter().find(|(n, _)| *n == name) {
                    Some((_, first)) => self.push(
                        &child(&at, "name"),
                        format!(
                            "duplicate probe name \"{name}\" (already used by /probes/{first})"
                        ),
                        "give every probe a unique name: names label the evidence",
                    ),
                    None => seen.push((name, i)),
                }
            }
            self.probe(obj, &at, global_flag);
        }
    }

    fn probe(&mut self, obj: &Map<String, Value>, at: &str, global_flag: Option<&str>) {
        self.fields(obj, at, PROBE_FIELDS, PROBE_REQUIRED, "a probe");
        let kind = obj.get("kind").and_then(|k| {
            let kind = k.as_str().and_then(parse_kind);
            if kind.is_none() {
                self.push(
                    &child(at, "kind"),
                    format!("kind must be one of {}, found {}", ProbeKind::ALL.join(", "), describe(k)),
                    "read: side-effect free; destructive: refuses until confirmed; invalid: exits 2; stream: JSONL lines",
                );
            }
            kind
        });
        let dry_run_flag = obj
            .get("dry_run_flag")
            .and_then(|f| self.string(f, &child(at, "dry_run_flag")));
        let argv = obj
            .get("argv")
            .and_then(|a| self.string_array(a, &child(at, "argv")));

        if let Some(value) = obj.get("deadline_seconds") {
            self.limit_seconds(value, &child(at, "deadline_seconds"), "deadline_seconds");
        }
        if let Some(value) = obj.get("signal") {
            if value.as_str() != Some("INT") {
                self.push(
                    &child(at, "signal"),
                    format!("signal must be \"INT\", found {}", describe(value)),
                    "use \"INT\": SIGINT is the one signal the kit sends",
                );
            }
        }
        if let Some(value) = obj.get("after_lines") {
            if whole_number(value).is_none_or(|n| n < 1) {
                self.push(
                    &child(at, "after_lines"),
                    format!(
                        "after_lines must be a whole number of at least 1 (and at most {}), found {}",
                        u64::MAX,
                        describe(value)
                    ),
                    "count the stdout lines to read before the signal, well inside a normal run, e.g. 2",
                );
            }
        }

        match kind {
            Some(ProbeKind::Stream) => {
                if obj.contains_key("dry_run_flag") {
                    self.push(
                        &child(at, "dry_run_flag"),
                        "dry_run_flag is not allowed on a stream probe: streams are side-effect free",
                        "remove dry_run_flag, or make this a destructive probe",
                    );
                }
                match (obj.contains_key("signal"), obj.contains_key("after_lines")) {
                    (true, false) => self.push(
                        &child(at, "after_lines"),
                        "signal requires after_lines: the kit must know when to send it",
                        "add \"after_lines\": N, a line count well inside a normal run",
                    ),
                    (false, true) => self.push(
                        &child(at, "signal"),
                        "after_lines requires signal",
                        "add \"signal\": \"INT\", or remove after_lines",
                    ),
                    _ => {}
                }
            }
            Some(other) => {
                for key in STREAM_ONLY_FIELDS {
                    if obj.contains_key(*key) {
                        self.push(
                            &child(at, key),
                            format!(
                                "{key} applies only to stream probes, not to {} {} probe",
                                if other == ProbeKind::Invalid {
                                    "an"
                                } else {
                                    "a"
                                },
                                other.as_str()
                            ),
                            format!("remove {key}, or make this a stream probe"),
                        );
                    }
                }
                if other == ProbeKind::Destructive && !obj.contains_key("dry_run_flag") {
                    self.push(
                        &child(at, "dry_run_flag"),
                        "dry_run_flag is required when kind is destructive",
                        "name the flag that turns the command into a preview, e.g. \"dry_run_flag\": \"--dry-run\"",
                    );
                }
            }
            None => {}
        }

        if let Some(flag) = dry_run_flag {
            if is_confirmation_flag(flag, kind == Some(ProbeKind::Destructive)) {
                self.push_violation(
                    Violation::new(
                        child(at, "dry_run_flag"),
                        format!("dry_run_flag \"{flag}\" is a confirmation flag: the preview run would delete for real"),
                        "name the preview flag, e.g. \"--dry-run\"",
                    )
                    .stricter_than_reference(COMMON_MISTAKES),
                );
            } else if !is_flag_name(flag) {
                self.push(
                    &child(at, "dry_run_flag"),
                    format!("dry_run_flag must be one flag name, found {}: one or two dashes, a lowercase letter, then lowercase letters, digits or dashes (the published pattern ^--?[a-z][a-z0-9-]*$)", describe(&Value::from(flag))),
                    "give the flag alone, without a value or spaces, e.g. \"--dry-run\" or \"-n\"",
                );
            }
        }
        if let Some(argv) = argv {
            let argv_at = child(at, "argv");
            let place = Place::Probe { kind, dry_run_flag };
            self.confirmation_flags(&argv, &argv_at, place);
            if matches!(
                kind,
                Some(ProbeKind::Read | ProbeKind::Invalid | ProbeKind::Destructive)
            ) {
                self.format_flags(&argv, &argv_at, global_flag, place);
            }
            if let Some(flag) = dry_run_flag.filter(|f| argv.contains(f)) {
                if kind == Some(ProbeKind::Destructive) {
                    self.push_violation(
                        Violation::new(
                            argv_at,
                            format!("argv already contains the dry_run_flag \"{flag}\": the refusal run would be a preview"),
                            "remove it from argv; the kit appends dry_run_flag itself for the preview run",
                        )
                        .stricter_than_reference(COMMON_MISTAKES),
                    );
                }
            }
        }
    }

    fn confirmation_flags(&mut self, args: &[&str], at: &str, place: Place) {
        let destructive = matches!(
            place,
            Place::Probe {
                kind: Some(ProbeKind::Destructive),
                ..
            }
        );
        // The arguments without their confirmation flags (command keeps its program).
        let without: Vec<&str> = args
            .iter()
            .enumerate()
            .filter(|(i, a)| *i < place.first_argument() || !is_confirmation_flag(a, destructive))
            .map(|(_, a)| *a)
            .collect();
        for (i, arg) in args.iter().enumerate().skip(place.first_argument()) {
            if !is_confirmation_flag(arg, destructive) {
                continue;
            }
            let (why, fix, patch) = match place {
                Place::Command => (
                    "command prefixes every run, so the destructive probes' refusal and preview runs would execute the action for real".to_string(),
                    format!("remove \"{arg}\" from command: the kit never deletes on purpose; destructive probes run without confirmation (expecting refusal) and with their dry_run_flag"),
                    None,
                ),
                Place::ArgumentOrder { repair, on_destructive } => {
                    let fix = match repair {
                        OrderRepair::Clean { .. } => repair.fix(),
                        _ if on_destructive => format!(
                            "removing \"{arg}\" alone leaves argument_order on a destructive command; {}",
                            repair.fix()
                        ),
                        _ => format!(
                            "removing \"{arg}\" alone leaves argument_order without a command and an option to run; {}",
                            repair.fix()
                        ),
                    };
                    (
                        "argument_order's command runs for real several times, and the profile format defines command_path as the \"Path of a side-effect-free command\"".to_string(),
                        fix,
                        Some(repair.patch()),
                    )
                }
                Place::Probe { kind: Some(ProbeKind::Destructive), dry_run_flag } => {
                    let live = if is_flag(arg, "--live") {
                        " (\"--live\" turns a tool's safe default, a preview, into the real action)"
                    } else {
                        ""
                    };
                    let preview = match dry_run_flag {
                        Some(flag) => format!("adds the dry_run_flag \"{flag}\" itself for the preview"),
                        None => "needs a dry_run_flag (e.g. \"--dry-run\") for the preview".to_string(),
                    };
                    (
                        format!("with it every run of this destructive probe executes the action for real{live}. The profile format says: \"Confirmation flags never appear in a probe. Destructive probes run without confirmation and with their declared dry_run_flag; the kit never deletes on purpose\""),
                        format!("remove \"{arg}\" from argv: the kit runs {} without confirmation, expecting a refusal, and {preview}", show_args(&without)),
                        None,
                    )
                }
                Place::Manifest | Place::Probe { .. } => (
                    "with it the kit would execute the action for real".to_string(),
                    format!("remove \"{arg}\"; destructive probes run without confirmation (expecting refusal) and with their dry_run_flag"),
                    None,
                ),
            };
            let patch = patch.unwrap_or_else(|| {
                vec![PatchOperation::Replace {
                    path: at.to_string(),
                    value: Value::from(without.clone()),
                }]
            });
            self.push_violation(
                Violation::new(
                    child(at, i),
                    format!("\"{arg}\" is a confirmation flag: {why}"),
                    fix,
                )
                .stricter_than_reference(COMMON_MISTAKES)
                .with_patch(patch),
            );
        }
    }

    fn format_flags(&mut self, args: &[&str], at: &str, global_flag: Option<&str>, place: Place) {
        for (i, arg) in args.iter().enumerate().skip(place.first_argument()) {
            let next = args.get(i + 1).copied();
            let named = if is_flag(arg, "--json") {
                Some(format!("\"{arg}\" selects JSON output"))
            } else if global_flag.is_some_and(|g| is_flag(arg, g)) {
                Some(format!(
                    "\"{arg}\" is the profile's argument_order.global_flag"
                ))
            } else {
                format_value(arg, next)
                    .map(|value| format!("\"{arg}\" selects the \"{value}\" output format"))
            };
            let Some(named) = named else { continue };
            let (reach, from) = match place {
                Place::Command => (
                    "command prefixes every run, so it would reach the read, invalid and destructive probes, and ",
                    "command",
                ),
                _ => ("", "argv"),
            };
            self.push_violation(
                Violation::new(
                    child(at, i),
                    format!("{named}: {reach}json_envelope must prove the tool prints JSON without flags when stdout is not a TTY (REQ-F-003)"),
                    format!("remove the format flag from {from}; argument_order is the one place a profile names it"),
                )
                .stricter_than_reference(COMMON_MISTAKES),
            );
        }
    }
}

/// The argument_order rule of the profile format: command_path is the "Path of a
/// side-effect-free command". A command the profile's own destructive probes name is
/// not one, and neither is one given a destructive probe's dry_run_flag. Returns
/// where to report it and what the destructive probe is.
fn destructive_target(
    order: &Map<String, Value>,
    probes: &[(usize, ProbeView)],
) -> Option<(String, String)> {
    let command_path = order
        .get("command_path")
        .and_then(strings)
        .unwrap_or_default();
    let local_args = order
        .get("local_args")
        .and_then(strings)
        .unwrap_or_default();
    // A path the profile itself runs as a read or stream probe is declared
    // side-effect free, even when a destructive command starts with it.
    let declared_safe = |path: &[&str]| {
        probes.iter().any(|(_, p)| {
            matches!(p.kind, ProbeKind::Read | ProbeKind::Stream) && p.command() == path
        })
    };
    // The first destructive probe says it; every other one would repeat it.
    probes
        .iter()
        .filter(|(_, p)| p.kind == ProbeKind::Destructive)
        .find_map(|(i, probe)| {
            let path = probe.command();
            let names_it = !command_path.is_empty()
                && path.starts_with(&command_path)
                && (path == command_path || !declared_safe(&command_path));
            let dry_run_at = probe
                .dry_run_flag
                .and_then(|f| local_args.iter().position(|a| is_flag(a, f)));
            let which = format!(
                "destructive probe \"{}\" (/probes/{i}, argv {})",
                probe.name,
                show_args(&probe.argv)
            );
            if names_it {
                let also = dry_run_at
                    .map(|j| {
                        format!(
                            ", and local_args contain its dry_run_flag \"{}\"",
                            local_args[j]
                        )
                    })
                    .unwrap_or_default();
                Some((
                    child(ORDER_AT, "command_path"),
                    format!(
                        "command_path {} is the command of {which}{also}",
                        show_args(&command_path)
                    ),
                ))
            } else {
                dry_run_at.map(|j| {
                    (
                        child(&child(ORDER_AT, "local_args"), j),
                        format!(
                            "local_args contain \"{}\", the dry_run_flag of {which}",
                            local_args[j]
                        ),
                    )
                })
            }
        })
}

/// How to mend an argument_order that holds a confirmation flag or runs a destructive
/// command. Every violation of such an argument_order gives this one fix, so the
/// fixes applied together leave a valid argument_order.
enum OrderRepair<'a> {
    /// Without its confirmation flags, argument_order runs a read command: keep it.
    Clean {
        command_path: Vec<&'a str>,
        local_args: Vec<&'a str>,
    },
    /// A read probe's command and the option it gives take argument_order's place.
    ReadProbe {
        name: &'a str,
        command_path: Vec<&'a str>,
        local_args: [&'a str; 2],
        /// positional belonged to the command argument_order named before.
        drop_positional: bool,
    },
    /// No read probe gives an option to use: argument_order goes. `read` is a read
    /// probe's command to suggest instead.
    Remove {
        read: Option<(&'a str, Vec<&'a str>)>,
    },
}

impl<'a> OrderRepair<'a> {
    fn of(
        order: &'a Map<String, Value>,
        probes: &[(usize, ProbeView<'a>)],
        global_flag: Option<&str>,
        on_destructive: bool,
    ) -> Self {
        let without_confirmation = |key: &str| -> Option<Vec<&'a str>> {
            let items = order.get(key).and_then(strings)?;
            Some(
                items
                    .into_iter()
                    .filter(|a| !is_confirmation_flag(a, false))
                    .collect(),
            )
        };
        if !on_destructive {
            if let (Some(command_path), Some(local_args)) = (
                without_confirmation("command_path"),
                without_confirmation("local_args"),
            ) {
                if !command_path.is_empty() && !command_path.contains(&"") && local_args.len() >= 2
                {
                    return OrderRepair::Clean {
                        command_path,
                        local_args,
                    };
                }
            }
        }
        let destructive: Vec<&ProbeView> = probes
            .iter()
            .map(|(_, p)| p)
            .filter(|p| p.kind == ProbeKind::Destructive)
            .collect();
        let reads = || {
            probes.iter().map(|(_, p)| p).filter(|p| {
                let command = p.command();
                p.kind == ProbeKind::Read
                    && !command.is_empty()
                    && !command.contains(&"")
                    && !destructive.iter().any(|d| d.command() == command)
            })
        };
        // The option may be any flag name but one the kit adds or refuses: a
        // confirmation, format or dry-run flag, or the global flag itself.
        let usable = |option: &str| {
            is_flag_name(option)
                && !is_confirmation_flag(option, true)
                && !is_flag(option, "--json")
                && !matches!(option, "--format" | "--output" | "-o")
                && global_flag != Some(option)
                && !destructive.iter().any(|d| d.dry_run_flag == Some(option))
        };
        for read in reads() {
            let command_path = read.command();
            let options = &read.argv[command_path.len()..];
            let pair = options
                .windows(2)
                .find(|w| usable(w[0]) && !w[1].is_empty() && !w[1].starts_with('-'));
            if let Some(&[option, value]) = pair {
                return OrderRepair::ReadProbe {
                    name: read.name,
                    command_path,
                    local_args: [option, value],
                    drop_positional: order.contains_key("positional"),
                };
            }
        }
        OrderRepair::Remove {
            read: reads().next().map(|p| (p.name, p.command())),
        }
    }

    /// The fix, in words that say what the patch does.
    fn fix(&self) -> String {
        match self {
            OrderRepair::Clean {
                command_path,
                local_args,
            } => format!(
                "remove the confirmation flags from argument_order, leaving \"command_path\": {} and \"local_args\": {}",
                show_args(command_path),
                show_args(local_args)
            ),
            OrderRepair::ReadProbe {
                name,
                command_path,
                local_args,
                drop_positional,
            } => format!(
                "point argument_order at read probe \"{name}\": set \"command_path\": {} and \"local_args\": {}, that probe's command and option{}",
                show_args(command_path),
                show_args(local_args),
                if *drop_positional {
                    ", and remove positional, which belongs to the command named before"
                } else {
                    ""
                }
            ),
            OrderRepair::Remove { read } => {
                let instead = match read {
                    Some((name, command)) => format!(
                        "a read command such as \"command_path\": {} from read probe \"{name}\"",
                        show_args(command)
                    ),
                    None => "a side-effect-free command".to_string(),
                };
                format!(
                    "remove argument_order to skip the argument_order check (no read probe gives an option to use), or point it at {instead}, with local_args one of its options and a value that changes its output (a filter or a cursor); never a confirmation or dry-run flag"
                )
            }
        }
    }

    /// The fix as JSON Patch operations.
    fn patch(&self) -> Vec<PatchOperation> {
        let replace = |key: &str, value: Value| PatchOperation::Replace {
            path: child(ORDER_AT, key),
            value,
        };
        match self {
            OrderRepair::Clean {
                command_path,
                local_args,
            } => vec![
                replace("command_path", serde_json::json!(command_path)),
                replace("local_args", serde_json::json!(local_args)),
            ],
            OrderRepair::ReadProbe {
                command_path,
                local_args,
                drop_positional,
                ..
            } => {
                let mut patch = vec![
                    replace("command_path", serde_json::json!(command_path)),
                    replace("local_args", serde_json::json!(local_args)),
                ];
                if *drop_positional {
                    patch.push(PatchOperation::Remove {
                        path: child(ORDER_AT, "positional"),
                    });
                }
                patch
            }
            OrderRepair::Remove { .. } => vec![PatchOperation::Remove {
                path: ORDER_AT.to_string(),
            }],
        }
    }
}

/// Where a list of arguments sits in the profile, for the wording of its violations.
#[derive(Clone, Copy)]
enum Place<'a> {
    /// `command`, whose first element is the program, not an argument.
    Command,
    Manifest,
    ArgumentOrder {
        repair: &'a OrderRepair<'a>,
        /// argument_order runs a destructive command even without the flag.
        on_destructive: bool,
    },
    Probe {
        kind: Option<ProbeKind>,
        dry_run_flag: Option<&'a str>,
    },
}

impl Place<'_> {
    fn first_argument(self) -> usize {
        match self {
            Place::Command => 1,
            _ => 0,
        }
    }
}

/// The parts of a well-formed probe that cross-probe rules need; `None` for a probe
/// that is malformed (its own violations say why).
struct ProbeView<'a> {
    name: &'a str,
    kind: ProbeKind,
    argv: Vec<&'a str>,
    dry_run_flag: Option<&'a str>,
}

impl<'a> ProbeView<'a> {
    fn of(probe: &'a Value) -> Option<Self> {
        Some(ProbeView {
            name: probe.get("name").and_then(Value::as_str).unwrap_or(""),
            kind: probe
                .get("kind")
                .and_then(Value::as_str)
                .and_then(parse_kind)?,
            argv: probe.get("argv").and_then(strings)?,
            dry_run_flag: probe.get("dry_run_flag").and_then(Value::as_str),
        })
    }

    /// The leading arguments up to the first option: the command path, and any
    /// positionals given before an option.
    fn command(&self) -> Vec<&'a str> {
        self.argv
            .iter()
            .copied()
            .take_while(|a| !a.starts_with('-'))
            .collect()
    }
}

/// The elements of an array of strings; `None` when it is not one.
fn strings(value: &Value) -> Option<Vec<&str>> {
    value.as_array()?.iter().map(Value::as_str).collect()
}

/// Arguments as the JSON array a profile author would write.
fn show_args(args: &[&str]) -> String {
    let quoted: Vec<String> = args.iter().map(|a| Value::from(*a).to_string()).collect();
    format!("[{}]", quoted.join(", "))
}

/// `arg` is `flag` or `flag=...`.
fn is_flag(arg: &str, flag: &str) -> bool {
    !flag.is_empty()
        && (arg == flag
            || arg
                .strip_prefix(flag)
                .is_some_and(|rest| rest.starts_with('=')))
}

/// The published pattern of global_flag, `^--[a-z][a-z0-9-]*$`.
fn is_long_option_name(arg: &str) -> bool {
    arg.strip_prefix("--").is_some_and(is_option_word)
}

/// The published pattern of dry_run_flag, `^--?[a-z][a-z0-9-]*$`.
fn is_flag_name(arg: &str) -> bool {
    is_long_option_name(arg) || arg.strip_prefix('-').is_some_and(is_option_word)
}

/// `[a-z][a-z0-9-]*`: an option's name after its dashes.
fn is_option_word(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn is_confirmation_flag(arg: &str, destructive: bool) -> bool {
    CONFIRMATION_FLAGS.iter().any(|f| is_flag(arg, f))
        || (destructive && DESTRUCTIVE_ONLY_CONFIRMATION_FLAGS.contains(&arg))
}

/// The format name selected by `--format X`, `--output X`, `-o X`, `--format=X`,
/// `--output=X` or `-oX` at this argument, if any.
fn format_value<'a>(arg: &'a str, next: Option<&'a str>) -> Option<&'a str> {
    let value = match arg {
        "--format" | "--output" | "-o" => next?,
        _ => arg
            .strip_prefix("--format=")
            .or_else(|| arg.strip_prefix("--output="))
            .or_else(|| {
                arg.strip_prefix("-o")
                    .filter(|v| !v.is_empty() && !v.starts_with('='))
            })?,
    };
    FORMAT_NAMES
        .iter()
        .any(|f| f.eq_ignore_ascii_case(value))
        .then_some(value)
}

fn parse_kind(s: &str) -> Option<ProbeKind> {
    match s {
        "read" => Some(ProbeKind::Read),
        "destructive" => Some(ProbeKind::Destructive),
        "invalid" => Some(ProbeKind::Invalid),
        "stream" => Some(ProbeKind::Stream),
        _ => None,
    }
}

/// A non-negative JSON number with no fractional part (`2` or `2.0`, as JSON Schema's
/// "integer") that fits in a `u64`.
pub(crate) fn whole_number(value: &Value) -> Option<u64> {
    if let Some(n) = value.as_u64() {
        return Some(n);
    }
    let f = value.as_f64()?;
    // 2^64 is the first f64 past u64::MAX.
    (f.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&f)).then_some(f as u64)
}

/// A short description of a JSON value for messages: its type and a bounded excerpt.
fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".into(),
        Value::Bool(b) => return format!("boolean {b}"),
        Value::Number(n) => return format!("number {n}"),
        Value::String(s) => {
            let excerpt: String = s.chars().take(40).collect();
            let ellipsis = if s.chars().count() > 40 { "..." } else { "" };
            return format!("string \"{excerpt}{ellipsis}\"");
        }
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    kind.into()
}

/// The known field closest to a misspelled one, when it is close enough to be a typo.
fn closest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (strsim::levenshtein(&key.to_ascii_lowercase(), k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typo_suggests_the_field() {
        assert_eq!(
            closest("timeout_second", ROOT_FIELDS),
            Some("timeout_seconds")
        );
        assert_eq!(closest("zzz", ROOT_FIELDS), None);
    }

    #[test]
    fn format_values() {
        assert_eq!(format_value("--format", Some("JSON")), Some("JSON"));
        assert_eq!(format_value("-ojson", None), Some("json"));
        assert_eq!(format_value("--output", Some("out.txt")), None);
        assert_eq!(format_value("-o", None), None);
        assert_eq!(format_value("--format=JSON", None), Some("JSON"));
        assert_eq!(format_value("-o=json", None), None);
        assert_eq!(format_value("--formats", Some("json")), None);
    }

    #[test]
    fn confirmation_flags_match_whole_flags_and_their_values() {
        assert!(is_confirmation_flag("--yes", false));
        assert!(is_confirmation_flag("--yes=true", false));
        assert!(!is_confirmation_flag("--yesterday", false));
        assert!(!is_confirmation_flag("--force-color", true));
        assert!(is_confirmation_flag("-f", true));
        assert!(!is_confirmation_flag("-f", false));
        assert!(!is_confirmation_flag("-f=x", true));
    }

    /// The violations of `argument_order` against these probes, as (pointer, message).
    fn order_violations(command_path: &[&str], local_args: &[&str], probes: Value) -> Vec<String> {
        let doc = serde_json::json!({
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "argument_order": {
                "command_path": command_path, "local_args": local_args,
                "global_flag": "--format", "value": "json", "alternate_value": "plain"
            },
            "probes": probes
        });
        validate_document(&doc)
            .into_iter()
            .map(|v| v.pointer)
            .collect()
    }

    #[test]
    fn argument_order_on_a_destructive_command_is_refused() {
        let delete = serde_json::json!({
            "name": "delete", "argv": ["delete", "staging", "--filter", "x"],
            "kind": "destructive", "dry_run_flag": "--preview"
        });
        let list = serde_json::json!({ "name": "list", "argv": ["delete"], "kind": "read" });
        // The destructive command itself, or its start, with positionals after it.
        for path in [&["delete", "staging"][..], &["delete"]] {
            assert_eq!(
                order_violations(path, &["--limit", "2"], serde_json::json!([delete])),
                ["/argument_order/command_path"],
                "{path:?}"
            );
        }
        // Its dry_run_flag in local_args, also written with a value.
        assert_eq!(
            order_violations(
                &["show"],
                &["--limit", "--preview=yes"],
                serde_json::json!([delete])
            ),
            ["/argument_order/local_args/1"]
        );
        // A start the profile itself runs as a read probe is declared side-effect free,
        // and another command is fine. An empty path names no command (and the
        // published schema refuses it: its one violation says so).
        assert!(order_violations(
            &["delete"],
            &["--limit", "2"],
            serde_json::json!([delete, list])
        )
        .is_empty());
        assert_eq!(
            order_violations(&[], &["--limit", "2"], serde_json::json!([delete])),
            ["/argument_order/command_path"]
        );
        assert!(
            order_violations(&["deleted"], &["--limit", "2"], serde_json::json!([delete]))
                .is_empty()
        );
    }

    #[test]
    fn whole_numbers_are_json_schema_integers_that_fit_u64() {
        let whole = |v: Value| whole_number(&v);
        assert_eq!(whole(serde_json::json!(2)), Some(2));
        assert_eq!(whole(serde_json::json!(2.0)), Some(2));
        assert_eq!(whole(serde_json::json!(u64::MAX)), Some(u64::MAX));
        assert_eq!(whole(serde_json::json!(1.5)), None);
        assert_eq!(whole(serde_json::json!(-1)), None);
        assert_eq!(whole(serde_json::json!(1e300)), None);
        assert_eq!(whole(serde_json::json!("2")), None);
    }

    #[test]
    fn after_lines_written_as_a_float_reaches_the_model() {
        let probe = serde_json::json!({
            "name": "interrupt", "argv": [], "kind": "stream", "signal": "INT", "after_lines": 2.0
        });
        assert!(validate_document(&serde_json::json!({
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "probes": [probe.clone()]
        }))
        .is_empty());
        let probe: crate::profile::Probe =
            serde_json::from_value(probe).expect("the model accepts 2.0");
        assert_eq!(probe.after_lines, Some(2));
    }
}
