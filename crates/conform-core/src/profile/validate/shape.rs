//! The shape of the profile format: each object's fields, the types of values, the
//! bounds of limits and counts, the published patterns of option names, the probe
//! kinds, and a well-formed probe as the rules across probes read it.
//!
//! Which fields each object has, and which it must have, are read from the profile
//! schema (`schemas/conformance-profile.schema.json`, which `conform schema` prints
//! and editors load) rather than restated here, and the kinds are the typed model's.
//! The other rules keep their own messages, which name the bound or pattern they
//! apply, so they state it too; the property test in `profile/tests.rs` checks that
//! validation and schema agree.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::{child, describe, Validator};
use crate::profile::{ProbeKind, PROFILE_SCHEMA};

/// The longest limit a profile may set, in seconds.
const MAX_LIMIT_SECONDS: f64 = 120.0;

/// An object of the profile format.
#[derive(Debug, Clone, Copy)]
pub(super) enum Object {
    /// The profile itself, the schema's root.
    Profile,
    /// `argument_order`, the schema's `ArgumentOrder`.
    ArgumentOrder,
    /// One entry of `probes`, the schema's `Probe`.
    Probe,
}

/// The fields one object may have and those it must have, in the schema's order
/// (serde_json keeps it: the workspace enables `preserve_order`), which messages
/// list them in.
#[derive(Debug)]
pub(super) struct Fields {
    known: Vec<String>,
    required: Vec<String>,
}

/// The fields of every object of the format, as the profile schema states them.
#[derive(Debug)]
pub(super) struct Shapes {
    profile: Fields,
    argument_order: Fields,
    probe: Fields,
}

impl Shapes {
    /// The shapes, read from the embedded schema once per process, or why the
    /// schema cannot be read (a bug in conform: the schema is part of it).
    pub(super) fn get() -> Result<&'static Shapes, &'static str> {
        static SHAPES: OnceLock<Result<Shapes, String>> = OnceLock::new();
        SHAPES
            .get_or_init(|| Shapes::read(PROFILE_SCHEMA))
            .as_ref()
            .map_err(String::as_str)
    }

    fn read(text: &str) -> Result<Shapes, String> {
        let schema: Value =
            serde_json::from_str(text).map_err(|error| format!("it is not JSON: {error}"))?;
        let fields = |at: &str| -> Result<Fields, String> {
            let object = schema
                .pointer(at)
                .ok_or_else(|| format!("it has nothing at \"{at}\""))?;
            let known = object
                .get("properties")
                .and_then(Value::as_object)
                .ok_or_else(|| format!("{at} has no properties"))?
                .keys()
                .cloned()
                .collect();
            let required = object
                .get("required")
                .and_then(Value::as_array)
                .and_then(|names| {
                    names
                        .iter()
                        .map(|name| name.as_str().map(String::from))
                        .collect()
                })
                .ok_or_else(|| format!("{at} has no list of required names"))?;
            Ok(Fields { known, required })
        };
        Ok(Shapes {
            profile: fields("")?,
            argument_order: fields("/definitions/ArgumentOrder")?,
            probe: fields("/definitions/Probe")?,
        })
    }

    fn of(&self, object: Object) -> &Fields {
        match object {
            Object::Profile => &self.profile,
            Object::ArgumentOrder => &self.argument_order,
            Object::Probe => &self.probe,
        }
    }
}

impl Validator {
    /// Unknown and missing fields of one object.
    pub(super) fn fields(
        &mut self,
        obj: &Map<String, Value>,
        at: &str,
        object: Object,
        what: &str,
    ) {
        let Fields { known, required } = self.shapes.of(object);
        for key in obj.keys() {
            if !known.contains(key) {
                if at.is_empty() && key == "$schema" {
                    self.schema_key();
                    continue;
                }
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
            if !obj.contains_key(key) {
                self.push(
                    &child(at, key),
                    format!("{what} is missing the required field \"{key}\""),
                    format!("add \"{key}\""),
                );
            }
        }
    }

    /// `$schema` at the root: an editor's way to find a schema, which the profile
    /// format (and the reference kit) refuses like any unknown key; say how else.
    fn schema_key(&mut self) {
        self.push(
            "/$schema",
            "unknown field \"$schema\" in the profile: the profile format allows no other key (the reference kit refuses it too), so a profile cannot name its schema",
            "remove \"$schema\"; to give your editor the schema, run `conform init --vscode` in the workspace root (it writes the schema from `conform schema profile --raw` into .vscode/ and maps conformance-profile.json to it in .vscode/settings.json), or point the editor's JSON schema setting at that output",
        );
    }

    pub(super) fn string<'a>(&mut self, value: &'a Value, at: &str) -> Option<&'a str> {
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
    pub(super) fn string_array<'a>(&mut self, value: &'a Value, at: &str) -> Option<Vec<&'a str>> {
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
    pub(super) fn limit_seconds(&mut self, value: &Value, at: &str, name: &str) {
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
}

/// The elements of an array of strings; `None` when it is not one.
pub(super) fn strings(value: &Value) -> Option<Vec<&str>> {
    value.as_array()?.iter().map(Value::as_str).collect()
}

/// The published pattern of global_flag, `^--[a-z][a-z0-9-]*$`.
pub(super) fn is_long_option_name(arg: &str) -> bool {
    arg.strip_prefix("--").is_some_and(is_option_word)
}

/// The published pattern of dry_run_flag, `^--?[a-z][a-z0-9-]*$`.
pub(super) fn is_flag_name(arg: &str) -> bool {
    is_long_option_name(arg) || arg.strip_prefix('-').is_some_and(is_option_word)
}

/// `[a-z][a-z0-9-]*`: an option's name after its dashes.
fn is_option_word(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
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

/// The known field closest to a misspelled one, when it is close enough to be a typo.
fn closest<'a>(key: &str, known: &'a [String]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| {
            (
                strsim::levenshtein(&key.to_ascii_lowercase(), k),
                k.as_str(),
            )
        })
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The parts of a well-formed probe that cross-probe rules need; `None` for a probe
/// that is malformed (its own violations say why).
pub(super) struct ProbeView<'a> {
    pub(super) name: &'a str,
    pub(super) kind: ProbeKind,
    pub(super) argv: Vec<&'a str>,
    pub(super) dry_run_flag: Option<&'a str>,
}

impl<'a> ProbeView<'a> {
    pub(super) fn of(probe: &'a Value) -> Option<Self> {
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
    pub(super) fn command(&self) -> Vec<&'a str> {
        self.argv
            .iter()
            .copied()
            .take_while(|a| !a.starts_with('-'))
            .collect()
    }
}

/// The kind of this name, as the typed model reads it: the model names the kinds.
pub(super) fn parse_kind(s: &str) -> Option<ProbeKind> {
    use serde::de::value::{Error, StrDeserializer};
    use serde::de::{Deserialize, IntoDeserializer};
    let name: StrDeserializer<'_, Error> = s.into_deserializer();
    ProbeKind::deserialize(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typo_suggests_the_field() {
        let known = &Shapes::get().expect("the schema is read").profile.known;
        assert_eq!(closest("timeout_second", known), Some("timeout_seconds"));
        assert_eq!(closest("zzz", known), None);
    }

    /// The schema's fields are the typed model's: every field of an object with
    /// every option given, and the required ones of an object with none given.
    #[test]
    fn the_schemas_fields_are_the_models() {
        use crate::profile::model::{ArgumentOrder, Probe, ProbeKind, ProbeSignal, Profile};
        let probe = |full: bool| Probe {
            name: "n".into(),
            argv: Vec::new(),
            kind: ProbeKind::Stream,
            dry_run_flag: full.then(|| "--dry-run".into()),
            deadline_seconds: full.then_some(1.0),
            signal: full.then_some(ProbeSignal::Int),
            after_lines: full.then_some(1),
        };
        let order = |full: bool| ArgumentOrder {
            command_path: Vec::new(),
            local_args: Vec::new(),
            global_flag: "--format".into(),
            value: "json".into(),
            alternate_value: "plain".into(),
            positional: full.then(|| "p".into()),
        };
        let profile = |full: bool| Profile {
            schema_version: "1.0".into(),
            tool: "t".into(),
            command: vec!["t".into()],
            timeout_seconds: 5.0,
            manifest: full.then(Vec::new),
            argument_order: full.then(|| order(true)),
            probes: vec![probe(full)],
        };
        let names = |value: serde_json::Result<Value>| -> Vec<String> {
            let mut names: Vec<String> = value
                .expect("the model serialises")
                .as_object()
                .map(|object| object.keys().cloned().collect())
                .unwrap_or_default();
            names.sort();
            names
        };
        let sorted = |names: &[String]| {
            let mut names = names.to_vec();
            names.sort();
            names
        };
        let shapes = Shapes::get().expect("the schema is read");
        for (object, full, bare) in [
            (
                Object::Profile,
                serde_json::to_value(profile(true)),
                serde_json::to_value(profile(false)),
            ),
            (
                Object::ArgumentOrder,
                serde_json::to_value(order(true)),
                serde_json::to_value(order(false)),
            ),
            (
                Object::Probe,
                serde_json::to_value(probe(true)),
                serde_json::to_value(probe(false)),
            ),
        ] {
            let fields = shapes.of(object);
            assert_eq!(names(full), sorted(&fields.known), "{object:?}");
            assert_eq!(names(bare), sorted(&fields.required), "{object:?}");
        }
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
    fn kinds_are_read_by_their_names_in_the_model() {
        for name in ProbeKind::ALL {
            assert_eq!(parse_kind(name).map(ProbeKind::as_str), Some(name));
        }
        assert_eq!(parse_kind("Read"), None);
        assert_eq!(parse_kind(""), None);
    }
}
