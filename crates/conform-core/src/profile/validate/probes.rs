//! The rules of the probe list and of one probe: names, kind, the fields each kind
//! allows or requires, and a probe's flags.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::flags::is_confirmation_flag;
use super::lints::{Place, COMMON_MISTAKES};
use super::shape::{is_flag_name, parse_kind, whole_number, Object};
use super::{child, describe, Validator, Violation};
use crate::profile::ProbeKind;

/// Fields a stream probe may have and no other probe.
const STREAM_ONLY_FIELDS: &[&str] = &["deadline_seconds", "signal", "after_lines"];

impl Validator {
    pub(super) fn probes(&mut self, probes: &Value, global_flag: Option<&str>) {
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
        // Each name with the index of its first probe; a map keeps this linear in
        // the number of probes (a generated profile can hold tens of thousands).
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(items.len());
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
                match seen.get(name) {
                    Some(first) => self.push(
                        &child(&at, "name"),
                        format!(
                            "duplicate probe name \"{name}\" (already used by /probes/{first})"
                        ),
                        "give every probe a unique name: names label the evidence",
                    ),
                    None => {
                        seen.insert(name, i);
                    }
                }
            }
            self.probe(obj, &at, global_flag);
        }
    }

    fn probe(&mut self, obj: &Map<String, Value>, at: &str, global_flag: Option<&str>) {
        self.fields(obj, at, Object::Probe, "a probe");
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
}

#[cfg(test)]
mod tests {
    use super::super::validate_document;

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
