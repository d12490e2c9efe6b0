//! The command registry: every command, flag, positional and exit code democli has.
//!
//! The parser, `--help` and `democli manifest` all read this one table, so the
//! manifest cannot drift from what the parser accepts (REQ-O-041).

use crate::error::Status;

/// Deployments returned per page when `--limit` is absent.
pub const DEFAULT_LIMIT: i64 = 5;
pub const MAX_LIMIT: i64 = 100;

/// What a flag's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Present or absent; takes no value.
    Bool,
    Text,
    Int {
        min: i64,
        max: i64,
    },
    Choice(&'static [&'static str]),
    /// A length of time: digits with an optional unit `ms`, `s` or `m` (plain digits are
    /// seconds). See [`parse_duration`].
    Duration,
}

/// Anchored regex of a [`Kind::Duration`] value, as the manifest and help show it.
pub const DURATION_PATTERN: &str = "^[0-9]+(ms|s|m)?$";

/// The longest duration accepted: a day, far beyond any useful wait.
const MAX_DURATION: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// `500ms`, `10s`, `2m` or `10` (seconds). `None` when the text is not a duration or is
/// longer than a day.
pub fn parse_duration(text: &str) -> Option<std::time::Duration> {
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(digits_end);
    if digits.is_empty() || digits.len() > 9 {
        return None;
    }
    let number: u64 = digits.parse().ok()?;
    let duration = match unit {
        "ms" => std::time::Duration::from_millis(number),
        "" | "s" => std::time::Duration::from_secs(number),
        "m" => std::time::Duration::from_secs(number.checked_mul(60)?),
        _ => return None,
    };
    (duration <= MAX_DURATION).then_some(duration)
}

/// A declared default, as the manifest shows it.
#[derive(Debug, Clone, Copy)]
pub enum Fallback {
    Bool(bool),
    Int(i64),
    Text(&'static str),
}

#[derive(Debug)]
pub struct Flag {
    pub name: &'static str,
    pub short: Option<char>,
    pub kind: Kind,
    pub required: bool,
    pub default: Option<Fallback>,
    /// Anchored regex the value must match (REQ-C-020), as documentation.
    pub pattern: Option<&'static str>,
    /// Placeholder shown in usage lines, e.g. `CURSOR`.
    pub value_name: &'static str,
    pub description: &'static str,
}

const fn switch(name: &'static str, description: &'static str) -> Flag {
    Flag {
        name,
        short: None,
        kind: Kind::Bool,
        required: false,
        default: Some(Fallback::Bool(false)),
        pattern: None,
        value_name: "",
        description,
    }
}

#[derive(Debug)]
pub struct Positional {
    pub name: &'static str,
    pub required: bool,
    pub description: &'static str,
    /// Checked while parsing, before anything is read: a value that names a resource
    /// is never passed on unchecked (REQ-F-045, REQ-F-015).
    pub accepts: Accepts,
}

/// The values a positional accepts.
#[derive(Debug, Clone, Copy)]
pub enum Accepts {
    /// Exactly one of these words; the manifest lists them as `enum_values`.
    OneOf(&'static [&'static str]),
    /// What `matches` accepts; `pattern` is the same rule as an anchored regex, for
    /// help, errors and the manifest's description (a positional has no `pattern`).
    Pattern {
        pattern: &'static str,
        matches: fn(&str) -> bool,
    },
}

impl Accepts {
    pub fn allows(self, value: &str) -> bool {
        match self {
            Accepts::OneOf(values) => values.contains(&value),
            Accepts::Pattern { matches, .. } => matches(value),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Danger {
    Safe,
    Destructive,
}

impl Danger {
    pub fn as_str(self) -> &'static str {
        match self {
            Danger::Safe => "safe",
            Danger::Destructive => "destructive",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideEffects {
    None,
    Partial,
    Complete,
}

impl SideEffects {
    pub fn as_str(self) -> &'static str {
        match self {
            SideEffects::None => "none",
            SideEffects::Partial => "partial",
            SideEffects::Complete => "complete",
        }
    }
}

/// One `ExitCodeEntry`. Only a timeout is retryable unchanged: every other failure
/// needs a changed input or environment first.
#[derive(Debug)]
pub struct ExitEntry {
    pub status: Status,
    pub description: &'static str,
    pub side_effects: SideEffects,
    pub retryable: bool,
}

const fn exit(status: Status, description: &'static str, side_effects: SideEffects) -> ExitEntry {
    ExitEntry {
        status,
        description,
        side_effects,
        retryable: false,
    }
}

#[derive(Debug)]
pub struct Example {
    pub description: &'static str,
    pub command: &'static str,
}

#[derive(Debug)]
pub struct Command {
    /// Dot-separated manifest key; empty for the root.
    pub key: &'static str,
    /// Words typed to reach the command.
    pub path: &'static [&'static str],
    pub description: &'static str,
    pub danger: Danger,
    pub flags: &'static [Flag],
    pub positionals: &'static [Positional],
    pub exits: &'static [ExitEntry],
    /// Keys of direct children; non-empty for groups, which run nothing themselves.
    pub subcommands: &'static [&'static str],
    pub streaming_default: bool,
    pub builtin: bool,
    pub idempotent: bool,
    /// Waits on the network, bounded by its `timeout` flag (REQ-C-012).
    pub network: bool,
    pub examples: &'static [Example],
}

impl Command {
    pub fn is_group(&self) -> bool {
        !self.subcommands.is_empty()
    }

    /// The command as typed, e.g. `deployments list`.
    pub fn display(&self) -> String {
        self.path.join(" ")
    }

    pub fn local_flag(&self, name: &str) -> Option<&'static Flag> {
        // Flags live in 'static tables, so the lookup can hand out 'static refs.
        self.flags.iter().find(|flag| flag.name == name)
    }

    pub fn child(&self, word: &str) -> Option<&'static Command> {
        self.subcommands
            .iter()
            .filter_map(|key| find(key))
            .find(|child| child.path.last() == Some(&word))
    }
}

pub fn find(key: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|command| command.key == key)
}

pub fn global_flag(name: &str) -> Option<&'static Flag> {
    GLOBAL_FLAGS.iter().find(|flag| flag.name == name)
}

pub static FORMATS: &[&str] = &["json", "plain"];

/// Options every command accepts in any position (REQ-F-079).
pub static GLOBAL_FLAGS: &[Flag] = &[
    Flag {
        name: "format",
        short: None,
        kind: Kind::Choice(FORMATS),
        required: false,
        // No static default: it depends on the terminal (REQ-F-003).
        default: None,
        pattern: None,
        value_name: "json|plain",
        description: "Output representation: json (one ResponseEnvelope, or JSON lines on a stream) or plain text; json when stdout is not a terminal or CI or NO_COLOR is set, plain in a terminal",
    },
    Flag {
        short: Some('h'),
        ..switch(
            "help",
            "Print help and exit 0; to stderr, with a JSON stub on stdout, when stdout is not a terminal",
        )
    },
    switch("version", "Print the democli version and exit 0"),
];

// Exit entries several commands share word for word.
const DATA_UNREADABLE: ExitEntry = exit(
    Status::GeneralError,
    "The data file could not be read or is corrupt; nothing changed",
    SideEffects::None,
);
const INVALID_ARGUMENT: ExitEntry = exit(
    Status::ArgError,
    "An argument or flag is invalid; nothing ran",
    SideEffects::None,
);
const NO_DATA_DIR: ExitEntry = exit(
    Status::Precondition,
    "No data directory is known: set DEMOCLI_HOME or HOME",
    SideEffects::None,
);
const INTERRUPTED_BEFORE_WRITE: ExitEntry = exit(
    Status::Interrupted,
    "Cancelled by SIGINT before the result was written",
    SideEffects::Partial,
);
const TERMINATED_BEFORE_WRITE: ExitEntry = exit(
    Status::Terminated,
    "Terminated by SIGTERM before the result was written",
    SideEffects::Partial,
);

const READ_EXITS: &[ExitEntry] = &[
    exit(Status::Success, "The result is returned", SideEffects::None),
    DATA_UNREADABLE,
    exit(
        Status::ArgError,
        "An argument, flag or cursor is invalid; nothing ran",
        SideEffects::None,
    ),
    NO_DATA_DIR,
    exit(
        Status::Interrupted,
        "Cancelled by SIGINT; a stream ends on a CANCELLED line after the items it emitted",
        SideEffects::Partial,
    ),
    exit(
        Status::Terminated,
        "Terminated by SIGTERM; a stream ends on a CANCELLED line after the items it emitted",
        SideEffects::Partial,
    ),
];

const GET_EXITS: &[ExitEntry] = &[
    exit(
        Status::Success,
        "The deployment is returned",
        SideEffects::None,
    ),
    DATA_UNREADABLE,
    INVALID_ARGUMENT,
    NO_DATA_DIR,
    exit(
        Status::NotFound,
        "No deployment has that ID; list them with deployments list",
        SideEffects::None,
    ),
    INTERRUPTED_BEFORE_WRITE,
    TERMINATED_BEFORE_WRITE,
];

const DELETE_EXITS: &[ExitEntry] = &[
    exit(
        Status::Success,
        "The matching deployments are deleted, or previewed with --dry-run",
        SideEffects::Complete,
    ),
    exit(
        Status::GeneralError,
        "The data file could not be read or written; the atomic write left it unchanged",
        SideEffects::None,
    ),
    exit(
        Status::ArgError,
        "Invalid input, or CONFIRMATION_REQUIRED without --yes; nothing was deleted",
        SideEffects::None,
    ),
    NO_DATA_DIR,
    exit(
        Status::Interrupted,
        "Cancelled by SIGINT; the write is atomic, so the data file is either old or new",
        SideEffects::Partial,
    ),
    exit(
        Status::Terminated,
        "Terminated by SIGTERM; the write is atomic, so the data file is either old or new",
        SideEffects::Partial,
    ),
];

const GROUP_EXITS: &[ExitEntry] = &[
    exit(
        Status::Success,
        "Help is printed (with --help); a group runs nothing itself",
        SideEffects::None,
    ),
    exit(
        Status::ArgError,
        "No subcommand, or an unknown one, was given; nothing ran",
        SideEffects::None,
    ),
];

const HEALTH_EXITS: &[ExitEntry] = &[
    exit(
        Status::Success,
        "democli and its data file are usable",
        SideEffects::None,
    ),
    exit(
        Status::GeneralError,
        "The data file could not be read or is corrupt",
        SideEffects::None,
    ),
    INVALID_ARGUMENT,
    NO_DATA_DIR,
    INTERRUPTED_BEFORE_WRITE,
    TERMINATED_BEFORE_WRITE,
];

/// The most bytes `deployments validate` reads from stdin (REQ-F-054).
pub const VALIDATE_MAX_BYTES: usize = 65536;

const VALIDATE_EXITS: &[ExitEntry] = &[
    exit(
        Status::Success,
        "The spec is one JSON object",
        SideEffects::None,
    ),
    exit(
        Status::ArgError,
        "stdin is empty, not one JSON object, or over 65536 bytes (STDIN_TOO_LARGE); nothing ran",
        SideEffects::None,
    ),
    INTERRUPTED_BEFORE_WRITE,
    TERMINATED_BEFORE_WRITE,
];

const MANIFEST_EXITS: &[ExitEntry] = &[
    exit(
        Status::Success,
        "The manifest is returned, or reported unchanged for a matching --etag",
        SideEffects::None,
    ),
    INVALID_ARGUMENT,
    INTERRUPTED_BEFORE_WRITE,
    TERMINATED_BEFORE_WRITE,
];

/// Every environment democli knows; anything else is refused before it is looked up.
pub const ENVIRONMENTS: &[&str] = &["dev", "production", "staging"];

const ENV_POSITIONAL: &[Positional] = &[Positional {
    name: "env",
    required: false,
    description: "Environment to list: dev, production or staging; all environments when absent",
    accepts: Accepts::OneOf(ENVIRONMENTS),
}];

/// Anchored regex of a deployment ID; [`is_deployment_id`] is the same rule.
pub const DEPLOYMENT_ID_PATTERN: &str = "^dep-[0-9]{3,}$";

/// `dep-` and at least three digits, nothing else: no path, query or escape can pass.
pub fn is_deployment_id(value: &str) -> bool {
    value
        .strip_prefix("dep-")
        .is_some_and(|digits| digits.len() >= 3 && digits.bytes().all(|b| b.is_ascii_digit()))
}

const ID_POSITIONAL: &[Positional] = &[Positional {
    name: "id",
    required: true,
    description: "Deployment ID matching ^dep-[0-9]{3,}$, such as dep-007",
    accepts: Accepts::Pattern {
        pattern: DEPLOYMENT_ID_PATTERN,
        matches: is_deployment_id,
    },
}];

const LIST_FLAGS: &[Flag] = &[
    Flag {
        name: "cursor",
        short: None,
        kind: Kind::Text,
        required: false,
        default: None,
        pattern: None,
        value_name: "CURSOR",
        description: "Opaque page token from meta.pagination.next_cursor; the first page when absent",
    },
    Flag {
        name: "limit",
        short: None,
        kind: Kind::Int {
            min: 1,
            max: MAX_LIMIT,
        },
        required: false,
        default: Some(Fallback::Int(DEFAULT_LIMIT)),
        pattern: None,
        value_name: "N",
        description: "Deployments per page, 1 to 100; a stream without --limit emits every remaining deployment",
    },
    switch(
        "stream",
        "Emit one JSON object per line as each deployment is read, numbered by _seq, ending on a _summary line",
    ),
];

/// Grammar of `--filter`, anchored; the parser in `commands::deployments` enforces it.
pub const FILTER_PATTERN: &str =
    "^(env|service|status)=[A-Za-z0-9._-]+(,(env|service|status)=[A-Za-z0-9._-]+)*$";

const DELETE_FLAGS: &[Flag] = &[
    Flag {
        name: "filter",
        short: None,
        kind: Kind::Text,
        required: true,
        default: None,
        pattern: Some(FILTER_PATTERN),
        value_name: "KEY=VALUE[,KEY=VALUE]",
        description: "Deployments to delete: comma-separated KEY=VALUE terms over env, service and status, all of which must match",
    },
    switch(
        "dry-run",
        "Preview what would be deleted (effect would_delete) and change nothing; wins over --yes",
    ),
    switch(
        "yes",
        "Confirm the deletion; without it (or --confirm-destructive) the command exits 2 with CONFIRMATION_REQUIRED",
    ),
    switch(
        "confirm-destructive",
        "Same as --yes: confirm the deletion (REQ-O-021)",
    ),
];

const EVENTS_FLAGS: &[Flag] = &[
    switch(
        "follow",
        "Keep streaming new events, with heartbeat lines when idle, until SIGINT or SIGTERM",
    ),
    switch(
        "no-stream",
        "Return the events as one ResponseEnvelope instead of streaming JSON lines",
    ),
];

const RELEASES_EXITS: &[ExitEntry] = &[
    exit(
        Status::Success,
        "The releases are returned, from the registry or from the local data file",
        SideEffects::None,
    ),
    DATA_UNREADABLE,
    INVALID_ARGUMENT,
    exit(
        Status::Precondition,
        "No data directory is known, or a proxy variable is not an http:// proxy",
        SideEffects::None,
    ),
    ExitEntry {
        status: Status::Timeout,
        description: "The proxy gave no answer within --timeout; nothing changed, a retry may work",
        side_effects: SideEffects::None,
        retryable: true,
    },
    INTERRUPTED_BEFORE_WRITE,
    TERMINATED_BEFORE_WRITE,
];

/// Default of `releases --timeout`, as typed: short, so that a call whose proxy never
/// answers ends (exit 10 TIMEOUT) well within the 5 s an agent's harness gives it
/// (REQ-F-011). A slower network needs `--timeout`.
pub const DEFAULT_TIMEOUT: &str = "1s";

const RELEASES_FLAGS: &[Flag] = &[Flag {
    name: "timeout",
    short: None,
    kind: Kind::Duration,
    required: false,
    default: Some(Fallback::Text(DEFAULT_TIMEOUT)),
    pattern: Some(DURATION_PATTERN),
    value_name: "DURATION",
    description: "Longest wait for the proxy's answer, as 500ms, 10s, 2m or plain seconds; 0 waits without limit; past it the command exits 10 with TIMEOUT",
}];

const MANIFEST_FLAGS: &[Flag] = &[Flag {
    name: "etag",
    short: None,
    kind: Kind::Text,
    required: false,
    default: None,
    pattern: None,
    value_name: "ETAG",
    description: "Etag of a cached manifest; when it still matches, data is null and meta.not_modified is true",
}];

/// The root: not a manifest command, only the parser's starting point.
pub static ROOT: Command = Command {
    key: "",
    path: &[],
    description: "Reference agent-ready CLI: lists, streams and deletes deployments kept in a local data file",
    danger: Danger::Safe,
    flags: &[],
    positionals: &[],
    exits: GROUP_EXITS,
    subcommands: &["deployments", "events", "health", "manifest", "releases"],
    streaming_default: false,
    builtin: false,
    idempotent: false,
    network: false,
    examples: &[],
};

pub static COMMANDS: &[Command] = &[
    Command {
        key: "deployments",
        path: &["deployments"],
        description: "Inspect and delete deployments",
        danger: Danger::Safe,
        flags: &[],
        positionals: &[],
        exits: GROUP_EXITS,
        subcommands: &[
            "deployments.list",
            "deployments.get",
            "deployments.delete",
            "deployments.validate",
        ],
        streaming_default: false,
        builtin: false,
        idempotent: false,
        network: false,
        examples: &[],
    },
    Command {
        key: "deployments.list",
        path: &["deployments", "list"],
        description: "List deployments one page at a time, optionally for one environment",
        danger: Danger::Safe,
        flags: LIST_FLAGS,
        positionals: ENV_POSITIONAL,
        exits: READ_EXITS,
        subcommands: &[],
        streaming_default: false,
        builtin: false,
        idempotent: false,
        network: false,
        examples: &[
            Example {
                description: "First page of staging deployments",
                command: "democli deployments list staging",
            },
            Example {
                description: "Second page, using the cursor from meta.pagination.next_cursor",
                command: "democli deployments list staging --cursor cGFnZTI=",
            },
            Example {
                description: "Every deployment as JSON lines",
                command: "democli deployments list --stream",
            },
        ],
    },
    Command {
        key: "deployments.get",
        path: &["deployments", "get"],
        description: "Show one deployment by ID",
        danger: Danger::Safe,
        flags: &[],
        positionals: ID_POSITIONAL,
        exits: GET_EXITS,
        subcommands: &[],
        streaming_default: false,
        builtin: false,
        idempotent: false,
        network: false,
        examples: &[Example {
            description: "Show deployment dep-007",
            command: "democli deployments get dep-007",
        }],
    },
    Command {
        key: "deployments.delete",
        path: &["deployments", "delete"],
        description: "Delete every deployment matching a filter; previews with --dry-run, deletes only with --yes",
        danger: Danger::Destructive,
        flags: DELETE_FLAGS,
        positionals: &[],
        exits: DELETE_EXITS,
        subcommands: &[],
        streaming_default: false,
        builtin: false,
        // Deleting by filter converges: a rerun deletes whatever still matches.
        idempotent: true,
        network: false,
        examples: &[
            Example {
                description: "Preview deleting every staging deployment",
                command: "democli deployments delete --filter env=staging --dry-run",
            },
            Example {
                description: "Delete the failed staging deployments",
                command: "democli deployments delete --filter env=staging,status=failed --yes",
            },
        ],
    },
    Command {
        key: "events",
        path: &["events"],
        description: "Stream the deployment event log as JSON lines; --follow keeps watching for new events",
        danger: Danger::Safe,
        flags: EVENTS_FLAGS,
        positionals: &[],
        exits: READ_EXITS,
        subcommands: &[],
        streaming_default: true,
        builtin: false,
        idempotent: false,
        network: false,
        examples: &[
            Example {
                description: "Every event so far as one envelope",
                command: "democli events --no-stream",
            },
            Example {
                description: "Watch new events until interrupted",
                command: "democli events --follow",
            },
        ],
    },
    Command {
        key: "deployments.validate",
        path: &["deployments", "validate"],
        description: "Check a deployment spec, one JSON object read from stdin (at most 65536 bytes), without storing it",
        danger: Danger::Safe,
        flags: &[],
        positionals: &[],
        exits: VALIDATE_EXITS,
        subcommands: &[],
        streaming_default: false,
        builtin: false,
        idempotent: true,
        network: false,
        examples: &[Example {
            description: "Check a spec file",
            command: "democli deployments validate < spec.json",
        }],
    },
    Command {
        key: "health",
        path: &["health"],
        description: "Report whether democli can read its data file",
        danger: Danger::Safe,
        flags: &[],
        positionals: &[],
        exits: HEALTH_EXITS,
        subcommands: &[],
        streaming_default: false,
        builtin: false,
        idempotent: false,
        network: false,
        examples: &[],
    },
    Command {
        key: "releases",
        path: &["releases"],
        description: "Latest production release of each service, from the local data file; with HTTPS_PROXY, HTTP_PROXY or ALL_PROXY set, the proxy is first asked for the demo registry registry.democli.invalid, which never resolves",
        danger: Danger::Safe,
        flags: RELEASES_FLAGS,
        positionals: &[],
        exits: RELEASES_EXITS,
        subcommands: &[],
        streaming_default: false,
        builtin: false,
        idempotent: false,
        network: true,
        examples: &[
            Example {
                description: "Latest releases; offline unless a proxy variable is set",
                command: "democli releases",
            },
            Example {
                description: "Give the proxy at most five seconds to answer",
                command: "democli releases --timeout 5s",
            },
        ],
    },
    Command {
        key: "manifest",
        path: &["manifest"],
        description: "Print every command, flag, positional and exit code as one ManifestResponse",
        danger: Danger::Safe,
        flags: MANIFEST_FLAGS,
        positionals: &[],
        exits: MANIFEST_EXITS,
        subcommands: &[],
        streaming_default: false,
        builtin: true,
        idempotent: false,
        network: false,
        examples: &[],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subcommand_is_registered_and_paths_match_keys() {
        for command in COMMANDS.iter().chain(std::iter::once(&ROOT)) {
            for key in command.subcommands {
                assert!(find(key).is_some(), "{key} is listed but not registered");
            }
        }
        for command in COMMANDS {
            assert_eq!(command.path.join("."), command.key);
        }
    }

    #[test]
    fn local_flags_never_reuse_global_names() {
        for command in COMMANDS {
            for flag in command.flags {
                assert!(global_flag(flag.name).is_none(), "{}", flag.name);
                assert!(flag.short.is_none() || flag.short != Some('h'));
            }
        }
    }

    #[test]
    fn every_command_declares_success() {
        for command in COMMANDS {
            assert_eq!(command.exits[0].status, Status::Success, "{}", command.key);
        }
    }
}
