//! `secret_flags_have_alternative`: a flag that takes a secret on the command line
//! (`--api-key KEY`, `--token <TOKEN>`) has an environment variable or a file or
//! stdin flag beside it (REQ-C-016), as every process listing and shell history
//! shows the arguments a tool was given. Read from the root `--help`, each read
//! probe's command `--help` and the manifest's flags; nothing is run with a secret.

use serde_json::{Map, Value};

use super::support::output::printed;
use super::{CheckId, CheckSpec, Context, Judge, Judged, Outcome};
use crate::plan::{RunKind, RunRole};

pub(super) const SECRET_FLAGS_HAVE_ALTERNATIVE: CheckSpec = CheckSpec {
    id: CheckId::SecretFlagsHaveAlternative,
    name: "secret_flags_have_alternative",
    title: "A flag that takes a secret has an environment variable or a file or stdin alternative",
    level: 2,
    failure_modes: &[24],
    requirements: &["REQ-C-016"],
    extension: true,
    reads: &[RunKind::Help, RunKind::CommandHelp, RunKind::Manifest],
    judge: Judge::Alone(judge),
};

/// Words of a flag's name that say it carries a secret, with the kind of secret.
const SECRET_WORDS: [(&str, &str); 9] = [
    ("token", "token"),
    ("secret", "secret"),
    ("password", "password"),
    ("passwd", "password"),
    ("passphrase", "password"),
    ("credential", "credential"),
    ("credentials", "credential"),
    ("apikey", "api-key"),
    ("api", "api-key"),
];

/// What comes before a last word `key` in a flag that holds a key itself
/// (`--access-key`, `--secret-key`); `--sort-key` or `--idempotency-key` do not.
const KEY_OWNERS: [&str; 13] = [
    "access",
    "account",
    "api",
    "auth",
    "deploy",
    "encryption",
    "license",
    "master",
    "private",
    "secret",
    "session",
    "signing",
    "storage",
];

/// Last words of a flag that names where a secret is, not the secret itself.
const SOURCE_WORDS: [&str; 4] = ["file", "stdin", "path", "env"];

/// Last words of a flag about a secret that is not the secret (`--token-url`,
/// `--secret-name`, `--credential-helper`).
const ABOUT_WORDS: [&str; 17] = [
    "arn",
    "cmd",
    "command",
    "dir",
    "endpoint",
    "expiration",
    "expires",
    "expiry",
    "helper",
    "id",
    "name",
    "prompt",
    "scope",
    "scopes",
    "ttl",
    "type",
    "url",
];

/// Parts of a variable's name that say it holds a secret.
const SECRET_VARIABLE_WORDS: [&str; 6] =
    ["TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"];

/// Lowercase value placeholders of option parsers that name a type (cobra's
/// `--token string`).
const TYPE_PLACEHOLDERS: [&str; 6] = ["string", "str", "text", "value", "secret", "token"];

/// Where a flag that takes a secret was seen, and whether an alternative was named
/// there.
struct Sighting<'a> {
    flag: String,
    place: String,
    run: Judged<'a>,
    alternative: bool,
}

fn judge(ctx: &Context<'_>) -> Outcome {
    let mut outcome = Outcome::new(CheckId::SecretFlagsHaveAlternative);
    let tool = &ctx.profile.profile.tool;
    let mut sightings: Vec<Sighting<'_>> = Vec::new();
    let mut unread: Vec<String> = Vec::new();
    for run in ctx.runs_of(&[RunKind::Help, RunKind::CommandHelp]) {
        let place = format!("`{tool} {}`", run.planned.label);
        // A help run that hung or never started is not read (no_hang and
        // help_off_stdout judge the tool's hangs); one that printed nothing has no
        // flags to judge.
        let text = printed(&run);
        if !run.finished() || text.trim().is_empty() {
            unread.push(place);
            continue;
        }
        outcome.runs_checked += 1;
        let help = Help::parse(&text);
        for flag in help.secret_flags() {
            sightings.push(Sighting {
                alternative: help.has_alternative(&flag),
                flag,
                place: place.clone(),
                run,
            });
        }
    }
    if let (Some(manifest), Some(run)) = (
        ctx.manifest_as_read(),
        ctx.run(RunRole::command(RunKind::Manifest)),
    ) {
        outcome.runs_checked += 1;
        for (flag, place, alternative) in manifest_secret_flags(manifest) {
            sightings.push(Sighting {
                flag,
                place,
                run,
                alternative,
            });
        }
    }
    let mut judged: Vec<&str> = Vec::new();
    for sighting in &sightings {
        if judged.contains(&sighting.flag.as_str()) {
            continue;
        }
        judged.push(&sighting.flag);
        let seen: Vec<&Sighting<'_>> = sightings
            .iter()
            .filter(|other| other.flag == sighting.flag)
            .collect();
        let places: Vec<&str> = seen.iter().map(|other| other.place.as_str()).collect();
        if let Some(with) = seen.iter().find(|other| other.alternative) {
            // REQ-C-016's verdict: an alternative passes. The spec's §24 table
            // still places a secret accepted on argv at its row 1; the findings
            // read this note.
            outcome.note(
                &with.run,
                format!(
                    "`--{}` in {} takes a secret on the command line beside an environment \
                     variable or file named for it",
                    sighting.flag,
                    places.join(", ")
                ),
            );
            continue;
        }
        outcome.fail_observed(
            &sighting.run,
            format!(
                "`--{}` in {} takes a secret on the command line, where process listings \
                 and shell history show its value, and no environment variable or file or \
                 stdin flag is named for it there: accept the secret from a variable or a \
                 file and name it in the help (REQ-C-016)",
                sighting.flag,
                places.join(", ")
            ),
        );
    }
    if outcome.runs_checked == 0 {
        outcome.skip(if unread.is_empty() {
            "no help run was made and the profile declares no manifest".to_string()
        } else {
            format!(
                "no help text to read: {} hung, failed to start or printed nothing, and \
                 no manifest was read",
                unread.join(", ")
            )
        });
    }
    outcome
}

/// A help run's text: stdout and stderr, as tools print help on either.
/// The words of a flag's name, lowercased (`--API_Key` is `api`, `key`).
fn words(name: &str) -> Vec<String> {
    name.split(['-', '_'])
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// The kind of secret a flag named `name` (without dashes) takes itself: `None`
/// for a switch that turns something off (`no-token`) and for a flag that names a
/// source or a property of a secret (`token-file`, `token-url`).
fn secret_kind(name: &str) -> Option<&'static str> {
    let words = words(name);
    let last = words.last()?;
    if words[0] == "no"
        || SOURCE_WORDS.contains(&last.as_str())
        || ABOUT_WORDS.contains(&last.as_str())
    {
        return None;
    }
    kind_of(&words)
}

/// The kind of secret these words name.
fn kind_of(words: &[String]) -> Option<&'static str> {
    if let [.., owner, last] = words {
        if last == "key" && KEY_OWNERS.contains(&owner.as_str()) {
            if owner == "api" {
                return Some("api-key");
            }
            if owner != "secret" {
                return Some("key");
            }
        }
    }
    words.iter().enumerate().find_map(|(at, word)| {
        let (_, kind) = SECRET_WORDS.iter().find(|(secret, _)| secret == word)?;
        // `api` alone is no secret: `--api-url`; `api` `key` is.
        if *word == "api" && words.get(at + 1).map(String::as_str) != Some("key") {
            return None;
        }
        Some(*kind)
    })
}

/// The kind of secret a flag that reads one from a file, stdin or a named
/// variable is for (`password-stdin`, `token-file`, `api-key-from-file`).
fn source_kind(name: &str) -> Option<&'static str> {
    let mut words = words(name);
    if !words
        .last()
        .is_some_and(|last| SOURCE_WORDS.contains(&last.as_str()))
    {
        return None;
    }
    while words
        .last()
        .is_some_and(|last| SOURCE_WORDS.contains(&last.as_str()) || last == "from")
    {
        words.pop();
    }
    kind_of(&words)
}

/// The flags and secret-like variables one help text names.
#[derive(Debug, Default)]
struct Help {
    /// Every long flag mentioned, with whether a value placeholder followed it once.
    flags: Vec<(String, bool)>,
    /// Variables named in the text whose name says they hold a secret.
    variables: Vec<String>,
}

impl Help {
    fn parse(text: &str) -> Help {
        let mut help = Help::default();
        let mut placeholders: Vec<std::ops::Range<usize>> = Vec::new();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            // yargs prints a value's type after the description: `[string]`.
            let typed = line.contains("[string]");
            for (at, _) in line.match_indices("--") {
                if at > 0 && !line[..at].ends_with(|c: char| !is_name_char(c)) {
                    continue;
                }
                let rest = &line[at + 2..];
                let name_len = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
                let name = rest[..name_len].trim_end_matches(['-', '_']);
                if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                    continue;
                }
                let after = &rest[name.len()..];
                let placeholder = placeholder_len(after);
                if let Some(len) = placeholder {
                    let start = offset + at + 2 + name.len();
                    placeholders.push(start..start + len);
                }
                let takes_value = placeholder.is_some() || typed;
                match help.flags.iter_mut().find(|(known, _)| known == name) {
                    Some((_, value)) => *value |= takes_value,
                    None => help.flags.push((name.to_string(), takes_value)),
                }
            }
            offset += line.len();
        }
        help.variables = secret_variables(text, &placeholders);
        help
    }

    /// The flags that take a value and whose name says it is a secret.
    fn secret_flags(&self) -> Vec<String> {
        self.flags
            .iter()
            .filter(|(name, takes_value)| *takes_value && secret_kind(name).is_some())
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// A secret-like variable is named in the same text, or a flag that reads the
    /// same kind of secret from a file, stdin or a variable.
    fn has_alternative(&self, flag: &str) -> bool {
        let kind = secret_kind(flag);
        !self.variables.is_empty()
            || self
                .flags
                .iter()
                .any(|(name, _)| kind.is_some() && source_kind(name) == kind)
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// The length of the value placeholder right after a flag's name, with its
/// separator: `=VALUE`, `[=VALUE]`, ` <VALUE>`, ` VALUE`, ` [VALUE]`, ` string`.
/// Two spaces start a description: the flag takes no value there.
fn placeholder_len(after: &str) -> Option<usize> {
    let token_len = |text: &str| text.find(char::is_whitespace).unwrap_or(text.len());
    if after.starts_with('=') || after.starts_with("[=") {
        return Some(token_len(after));
    }
    let word = after.strip_prefix(' ')?;
    let token = &word[..token_len(word)];
    let bare = token
        .trim_start_matches(['[', '<', '{'])
        .trim_end_matches([']', '>', '}', ',', ')', '.']);
    let is_upper = bare.starts_with(|c: char| c.is_ascii_uppercase())
        && bare
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == '-');
    let bracketed = token.starts_with('<') || token.starts_with("[<");
    (bracketed || is_upper || TYPE_PLACEHOLDERS.contains(&bare)).then_some(1 + token.len())
}

/// The variables `text` names, outside the flags' value placeholders, whose name
/// says they hold a secret: `FOO_TOKEN`, `$TOKEN`, `[env: FOO_API_KEY=]`, "or set
/// TOKEN".
fn secret_variables(text: &str, placeholders: &[std::ops::Range<usize>]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        let ident = c.is_ascii_alphanumeric() || c == '_';
        match (ident, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                start = None;
                let name = &text[from..at];
                if placeholders.iter().any(|range| range.contains(&from)) {
                    continue;
                }
                let upper = name.starts_with(|c: char| c.is_ascii_uppercase())
                    && name
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                let secret = SECRET_VARIABLE_WORDS.iter().any(|word| name.contains(word));
                if upper
                    && secret
                    && names_a_variable(text, from, name)
                    && !found.iter().any(|f| f == name)
                {
                    found.push(name.to_string());
                }
            }
            _ => {}
        }
    }
    found
}

/// Whether the upper-case word at `from` reads as a variable: it has an
/// underscore, follows `$`, or follows "env" or "set" on its line.
fn names_a_variable(text: &str, from: usize, name: &str) -> bool {
    let before = &text[..from];
    let line = before.rsplit('\n').next().unwrap_or(before);
    let skip = line.chars().count().saturating_sub(24);
    let lead = line
        .chars()
        .skip(skip)
        .collect::<String>()
        .to_ascii_lowercase();
    name.contains('_')
        || before.ends_with('$')
        || before.ends_with("${")
        || lead.contains("env")
        || lead.trim_end().ends_with("set")
}

/// Each manifest flag (the root's and every command's) that takes a secret: its
/// name, where it is, and whether it has `env_vars` or a sibling flag that reads
/// the same secret from a file, stdin or a variable.
fn manifest_secret_flags(manifest: &Value) -> Vec<(String, String, bool)> {
    let root = manifest
        .get("flags")
        .and_then(Value::as_object)
        .map(|flags| ("the manifest's root flags".to_string(), flags));
    let commands = manifest
        .get("commands")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(path, command)| {
            let flags = command.get("flags")?.as_object()?;
            Some((format!("the manifest's `{path}` flags"), flags))
        });
    let mut found = Vec::new();
    for (place, flags) in root.into_iter().chain(commands) {
        for (name, flag) in flags {
            let boolean = flag.get("type").and_then(Value::as_str) == Some("boolean");
            let Some(kind) = secret_kind(name).filter(|_| !boolean) else {
                continue;
            };
            let has_env = flag
                .get("env_vars")
                .and_then(Value::as_array)
                .is_some_and(|vars| !vars.is_empty());
            found.push((
                name.clone(),
                place.clone(),
                has_env || has_source(flags, kind),
            ));
        }
    }
    found
}

/// A flag of `flags` reads a secret of `kind` from a file, stdin or a variable.
fn has_source(flags: &Map<String, Value>, kind: &str) -> bool {
    flags.keys().any(|name| source_kind(name) == Some(kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::skips::{assert_skipped, details, judged_with, manifest_envelope_with};
    use crate::checks::Status;
    use crate::exec::Exit;
    use crate::exec::RunRecord;
    use crate::plan::PlannedRun;

    const PROFILE: &str = r#"{
        "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
        "probes": [
            { "name": "list", "argv": ["list", "--all"], "kind": "read" },
            { "name": "list again", "argv": ["list", "--limit", "1"], "kind": "read" },
            { "name": "login", "argv": ["auth", "login"], "kind": "read" },
            { "name": "bad", "argv": ["list", "--nope"], "kind": "invalid" }
        ]
    }"#;

    const ROOT_HELP: &str =
        "t - a tool\n\nUsage: t <command>\n\nOptions:\n  -h, --help  Print help\n";

    /// Each help run prints its text on stderr: `auth login --help` prints `login`.
    fn helps(login: &'static str) -> impl Fn(&PlannedRun, &mut RunRecord) {
        move |run, record| {
            let text = match run.label.as_str() {
                "--help" => ROOT_HELP,
                "auth login --help" => login,
                _ => "Usage: t list [--all] [--limit N]\n",
            };
            record.stderr.bytes = text.as_bytes().to_vec();
        }
    }

    #[test]
    fn one_help_run_per_command_path_and_none_for_an_invalid_probe() {
        let labels = std::cell::RefCell::new(Vec::new());
        judged_with(PROFILE, CheckId::SecretFlagsHaveAlternative, |run, _| {
            labels.borrow_mut().push(run.label.clone());
        });
        assert_eq!(
            labels.into_inner(),
            ["--help", "list --help", "auth login --help"]
        );
    }

    #[test]
    fn a_bare_token_flag_fails_naming_it_and_the_help_it_is_in() {
        let login = "Usage: t auth login [OPTIONS]\n\nOptions:\n  --token <TOKEN>  The API token\n  --no-token       Log in anonymously\n  --show-token     Print the token after login\n";
        let outcome = judged_with(PROFILE, CheckId::SecretFlagsHaveAlternative, helps(login));
        assert_eq!(outcome.status(), Status::Fail);
        assert_eq!(outcome.runs_checked, 3);
        assert_eq!(
            details(&outcome),
            [
                "`--token` in `t auth login --help` takes a secret on the command line, where \
              process listings and shell history show its value, and no environment \
              variable or file or stdin flag is named for it there: accept the secret from \
              a variable or a file and name it in the help (REQ-C-016)"
            ]
        );
        assert_eq!(outcome.failures[0].run.probe, "auth login --help");
    }

    #[test]
    fn a_clap_env_annotation_is_an_alternative() {
        let login = "Options:\n      --api-key <API_KEY>  The key [env: T_API_KEY=]\n";
        let outcome = judged_with(PROFILE, CheckId::SecretFlagsHaveAlternative, helps(login));
        assert_eq!(outcome.status(), Status::Pass, "{:?}", details(&outcome));
        assert_eq!(outcome.runs_checked, 3);
    }

    #[test]
    fn the_placeholder_of_the_flag_itself_is_no_variable() {
        // argparse's metavar is the flag's name in capitals: not a variable.
        let login = "usage: t auth login [--api-key API_KEY]\n\n  --api-key API_KEY  the key\n";
        let outcome = judged_with(PROFILE, CheckId::SecretFlagsHaveAlternative, helps(login));
        assert_eq!(outcome.status(), Status::Fail);
        assert!(details(&outcome)[0].starts_with("`--api-key` in `t auth login --help`"));
        // Named in prose, a variable is an alternative.
        let login = "  --api-key API_KEY  the key; or set $TOKEN\n";
        let outcome = judged_with(PROFILE, CheckId::SecretFlagsHaveAlternative, helps(login));
        assert_eq!(outcome.status(), Status::Pass, "{:?}", details(&outcome));
    }

    #[test]
    fn a_stdin_or_file_sibling_is_an_alternative() {
        let login = "Flags:\n  -p, --password string   Password\n      --password-stdin    Take the password from stdin\n";
        let outcome = judged_with(PROFILE, CheckId::SecretFlagsHaveAlternative, helps(login));
        assert_eq!(outcome.status(), Status::Pass, "{:?}", details(&outcome));
        let login = "  --secret-key=<key>   the key\n  --secret-key-file=<path>  read it from a file\n  --access-key KEY  the id\n";
        let outcome = judged_with(PROFILE, CheckId::SecretFlagsHaveAlternative, helps(login));
        assert_eq!(
            outcome.failures.len(),
            1,
            "the file is for the secret key alone: {:?}",
            details(&outcome)
        );
        assert!(details(&outcome)[0].starts_with("`--access-key` in"));
    }

    #[test]
    fn names_that_are_no_secret_pass() {
        let login = "  --max-tokens N  most tokens\n  --token-url URL  where\n  --sort-key KEY  order\n  --idempotency-key KEY  once\n  --api-url URL  the API\n";
        let outcome = judged_with(PROFILE, CheckId::SecretFlagsHaveAlternative, helps(login));
        assert_eq!(outcome.status(), Status::Pass, "{:?}", details(&outcome));
    }

    #[test]
    fn the_manifest_counts_as_a_source_and_as_an_alternative() {
        const WITH_MANIFEST: &str = r#"{
            "schema_version": "1.0", "tool": "t", "command": ["sh"], "timeout_seconds": 5,
            "manifest": ["manifest"],
            "probes": [ { "name": "login", "argv": ["auth", "login"], "kind": "read" } ]
        }"#;
        let manifest = manifest_envelope_with(
            serde_json::json!({ "auth.login": { "flags": {
                "password": { "type": "string", "env_vars": [{ "name": "T_PASSWORD" }] },
                "token": { "type": "string" }, "token-stdin": { "type": "boolean" },
                "secret": { "type": "string" }, "no-secret": { "type": "boolean" }
            } } }),
            serde_json::json!({ "flags": { "api-key": { "type": "string" } } }),
        );
        let outcome = judged_with(
            WITH_MANIFEST,
            CheckId::SecretFlagsHaveAlternative,
            |run, record| {
                match run.role.kind {
                    RunKind::Manifest => record.stdout.bytes = manifest.clone().into_bytes(),
                    // The help lists the password flag bare: the manifest's env_vars
                    // are its alternative.
                    _ => record.stderr.bytes = b"  --password PASSWORD  the password\n".to_vec(),
                }
            },
        );
        let details = details(&outcome);
        assert_eq!(details.len(), 2, "{details:?}");
        assert!(details[0].starts_with("`--api-key` in the manifest's root flags takes"));
        assert!(details[1].starts_with("`--secret` in the manifest's `auth.login` flags takes"));
        assert_eq!(outcome.runs_checked, 3);
    }

    #[test]
    fn it_skips_when_no_help_was_read_and_passes_on_help_without_a_secret_flag() {
        let outcome = judged_with(PROFILE, CheckId::SecretFlagsHaveAlternative, |_, record| {
            record.exit = Exit::Unknown;
            record.timed_out = true;
        });
        assert_skipped(
            &outcome,
            "no help text to read: `t --help`, `t list --help`",
        );
        let outcome = judged_with(
            PROFILE,
            CheckId::SecretFlagsHaveAlternative,
            helps(ROOT_HELP),
        );
        assert_eq!(outcome.status(), Status::Pass);
        assert_eq!(outcome.runs_checked, 3);
    }
}
