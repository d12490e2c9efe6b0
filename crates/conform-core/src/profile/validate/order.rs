//! The rules of argument_order: its arguments, its flag and values, and that it
//! names a side-effect-free command.

use serde_json::{Map, Value};

use super::flags::is_flag;
use super::lints::{Place, COMMON_MISTAKES};
use super::order_repair::{OrderRepair, ORDER_AT};
use super::shape::{is_long_option_name, strings, Object, ProbeView};
use super::{child, describe, show_args, Validator, Violation};
use crate::profile::ProbeKind;

impl Validator {
    pub(super) fn argument_order(
        &mut self,
        order: &Value,
        probes: &[Value],
        global_flag: Option<&str>,
    ) {
        let at = ORDER_AT;
        let Some(obj) = order.as_object() else {
            self.push(
                at,
                format!("argument_order must be an object, found {}", describe(order)),
                "give command_path, local_args, global_flag, value and alternate_value, or remove argument_order to skip the check",
            );
            return;
        };
        self.fields(obj, at, Object::ArgumentOrder, "argument_order");
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

#[cfg(test)]
mod tests {
    use super::super::validate_document;
    use super::*;

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
}
