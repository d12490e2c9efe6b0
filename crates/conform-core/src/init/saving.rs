//! What a saved profile may hold. A saved read probe is run by `conform run`
//! wherever the user keeps the profile: in their project, with their HOME and
//! credentials. A command is kept out of it (check-only: judged in `conform
//! check`'s scratch sandboxes, never saved) when its run changed the bait project
//! of its working directory ([`super::bait`]), when it wrote in its HOME beyond
//! the tool's own state, or, whatever its run showed, when its name says it
//! writes: a formatter given an empty directory changes nothing and looks like a
//! read, then rewrites the user's sources under `conform run` (issue 43).

use serde_json::{Map, Value};

use super::{Body, Warning, UNKNOWN_FLAG};

/// The verbs whose commands write where they are run, each with the words that
/// say it: the verb, its obvious inflections (`formats`, `formatting`) and the
/// prefixed forms tools use (`reformat`, `autofix`, `gofmt`). Past participles
/// and nouns are left out on purpose: `installed` and `formatters` list things.
const WRITING_VERBS: &[(&str, &[&str])] = &[
    (
        "formats",
        &[
            "fmt",
            "format",
            "formats",
            "formatting",
            "reformat",
            "reformats",
            "reformatting",
            "prettify",
        ],
    ),
    ("fixes", &["fix", "fixes", "fixing", "autofix", "fixup"]),
    (
        "writes",
        &[
            "write",
            "writes",
            "writing",
            "rewrite",
            "rewrites",
            "overwrite",
            "overwrites",
        ],
    ),
    ("applies", &["apply", "applies", "applying"]),
    ("migrates", &["migrate", "migrates", "migrating"]),
    (
        "syncs",
        &[
            "sync",
            "syncs",
            "syncing",
            "resync",
            "synchronize",
            "synchronise",
        ],
    ),
    ("pushes", &["push", "pushes", "pushing"]),
    (
        "installs",
        &["install", "installs", "installing", "reinstall"],
    ),
];

/// What a command word says it does when it says it writes (`formats`), by its
/// parts: `apps:migrate`, `fix-imports`, `db_sync`, and `gofmt`, `rustfmt`.
pub(crate) fn writes_by_name(word: &str) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|part| !part.is_empty())
        .find_map(|part| {
            WRITING_VERBS.iter().find_map(|(says, words)| {
                let fmt = *says == "formats" && part.ends_with("fmt");
                (fmt || words.contains(&part)).then_some(*says)
            })
        })
}

/// Why `argv` (a command's words, then its arguments) is never saved as a read
/// probe by its name, if it is not.
pub(crate) fn never_saved(argv: &[String]) -> Option<String> {
    argv.iter()
        .filter(|word| !word.starts_with('-'))
        .find_map(|word| {
            writes_by_name(word).map(|says| {
                format!(
                    "its name says it {says} (`{word}`): a saved read probe would run it in the user's project, so it is never saved, whatever its run here showed"
                )
            })
        })
}

/// The last word on what is saved: every non-destructive probe whose name says it
/// writes moves to the check-only probes (`conform check`) or is dropped
/// (`conform init`, which saves every probe it keeps), with a warning saying why;
/// an unknown-flag probe on such a command is made on the tool itself. A manifest
/// that calls a `format` command safe is overruled too: `conform run` would make
/// it in the user's project.
pub(super) fn keep_saved_reads_safe(body: &mut Body, exploring: bool) {
    let mut kept = Vec::with_capacity(body.probes.len());
    for probe in std::mem::take(&mut body.probes) {
        let kind = probe["kind"].as_str().unwrap_or_default();
        let name = probe["name"].as_str().unwrap_or_default().to_string();
        let why = never_saved(&argv(&probe));
        match (kind, why) {
            ("destructive", _) | (_, None) => kept.push(probe),
            ("invalid", Some(_)) => {
                let mut probe = probe;
                probe["name"] = Value::from("unknown flag");
                probe["argv"] = Value::from(vec![UNKNOWN_FLAG]);
                kept.push(probe);
            }
            (_, Some(why)) if exploring => {
                body.warnings.push(Warning::check_only(&name, &why, &[]));
                if let Some(census) = &mut body.census {
                    census.check_only.push(name.clone());
                }
                body.check_only.push(probe);
            }
            (_, Some(why)) => body.warnings.push(Warning::skipped(&name, why)),
        }
    }
    body.probes = kept;
}

/// `meta.inferred.check_only_reasons`: each check-only probe's command, and why it
/// was kept out of the saved profile.
pub(crate) fn check_only_reasons(warnings: &[Warning]) -> Map<String, Value> {
    warnings
        .iter()
        .filter(|w| w.code == "CHECK_ONLY_PROBE")
        .filter_map(|w| {
            let command = w.context["command"].as_str()?;
            Some((command.to_string(), w.context["reason"].clone()))
        })
        .collect()
}

fn argv(probe: &Value) -> Vec<String> {
    probe["argv"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_that_say_they_write_are_never_saved() {
        for (word, says) in [
            ("format", "formats"),
            ("fmt", "formats"),
            ("gofmt", "formats"),
            ("reformat", "formats"),
            ("fix", "fixes"),
            ("fix-imports", "fixes"),
            ("autofix", "fixes"),
            ("write", "writes"),
            ("apply", "applies"),
            ("db:migrate", "migrates"),
            ("sync", "syncs"),
            ("Push", "pushes"),
            ("install", "installs"),
            ("installing", "installs"),
        ] {
            assert_eq!(writes_by_name(word), Some(says), "{word}");
        }
        for word in [
            "list",
            "status",
            "check",
            "installed",
            "formatters",
            "fixtures",
            "prefix",
            "pushd",
            "lint",
        ] {
            assert_eq!(writes_by_name(word), None, "{word}");
        }
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert!(never_saved(&argv(&["code", "format"]))
            .is_some_and(|why| why.starts_with("its name says it formats (`format`)")));
        assert_eq!(never_saved(&argv(&["check", "--fix-hint"])), None);
    }

    #[test]
    fn the_last_word_moves_writing_reads_out_of_the_saved_profile() {
        let probe = |name: &str, argv: &[&str], kind: &str| json!({ "name": name, "argv": argv, "kind": kind });
        let body = || Body {
            probes: vec![
                probe("format", &["format"], "read"),
                probe("lint", &["lint"], "read"),
                probe("sync", &["sync"], "destructive"),
                probe(
                    "unknown flag on format",
                    &["format", UNKNOWN_FLAG],
                    "invalid",
                ),
            ],
            ..Body::default()
        };
        let names = |probes: &[Value]| -> Vec<String> {
            probes
                .iter()
                .map(|p| p["name"].as_str().unwrap_or_default().to_string())
                .collect()
        };
        let mut checked = body();
        keep_saved_reads_safe(&mut checked, true);
        assert_eq!(names(&checked.probes), ["lint", "sync", "unknown flag"]);
        assert_eq!(checked.probes[2]["argv"], json!([UNKNOWN_FLAG]));
        assert_eq!(names(&checked.check_only), ["format"]);
        let reasons = check_only_reasons(&checked.warnings);
        assert!(reasons["format"]
            .as_str()
            .is_some_and(|why| why.contains("its name says it formats")));

        let mut initialised = body();
        keep_saved_reads_safe(&mut initialised, false);
        assert_eq!(names(&initialised.probes), ["lint", "sync", "unknown flag"]);
        assert!(initialised.check_only.is_empty());
        assert_eq!(initialised.warnings[0].code, "COMMAND_SKIPPED");
    }
}
