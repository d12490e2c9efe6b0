//! Profile validation: every rule of the profile format, plus the seed's "common
//! mistakes", checked on the raw JSON document so that *all* violations are reported
//! at once, each with the JSON pointer of the offending value.
//!
//! One `Validator` walks the document; each concept adds its rules to it:
//! `shape` the fields, types and bounds of the format (its fields read from the
//! profile schema), `probes` the rules of one probe and of the probe list, `order`
//! those of argument_order, with `order_repair` the one fix its violations share,
//! and `lints` the "common mistakes", conform's own rules, with `flags` saying
//! which flags they are about. Violations are pushed in the order the walk meets
//! them, which is the order they are reported in for one position in the file.
//!
//! The files depend on each other one way only: `flags` and `shape` on none of
//! the others, `order_repair` on those two, `lints` on `order_repair`, and
//! `probes` and `order` on all of these.

mod flags;
mod lints;
mod order;
mod order_repair;
mod probes;
mod shape;
mod violation;

use serde_json::Value;

use super::pointer::child;
use lints::Place;
use shape::{Object, Shapes};

pub(crate) use flags::CONFIRMATION_FLAGS;
pub(super) use shape::whole_number;
pub use violation::Violation;

/// Check a parsed profile document against every rule; an empty result means valid
/// (command resolution aside, which needs the file system: see `load`).
pub(crate) fn validate_document(doc: &Value) -> Vec<Violation> {
    let shapes = match Shapes::get() {
        Ok(shapes) => shapes,
        // Every field would pass unchecked: refuse the profile instead.
        Err(error) => {
            return vec![Violation::new(
                "",
                format!("internal error: conform's profile schema cannot be read: {error}"),
                "please report this to conform's maintainers",
            )]
        }
    };
    let mut v = Validator {
        shapes,
        violations: Vec::new(),
    };
    v.root(doc);
    v.violations
}

struct Validator {
    /// The fields of each object of the format.
    shapes: &'static Shapes,
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
        self.fields(obj, "", Object::Profile, "the profile");

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
}

/// Arguments as the JSON array a profile author would write.
fn show_args(args: &[&str]) -> String {
    let quoted: Vec<String> = args.iter().map(|a| Value::from(*a).to_string()).collect();
    format!("[{}]", quoted.join(", "))
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
