//! What a command's name says about its side effects.

/// Names that read as side-effect free.
const READ_VERBS: &[&str] = &[
    "list", "ls", "get", "show", "status", "info", "describe", "search", "version", "whoami", "me",
    "config", "view",
];

/// Names that read as deleting something.
const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete",
    "remove",
    "rm",
    "destroy",
    "drop",
    "purge",
    "uninstall",
    "prune",
    "wipe",
    "erase",
    "clean",
    "clear",
    "kill",
    "terminate",
    "revoke",
    "reset",
    "truncate",
];

/// Names that read as changing state, or as reaching out (network, browser): their
/// help is never asked for, since a command that ignores `--help` would act.
const MUTATING_VERBS: &[&str] = &[
    "add",
    "apply",
    "create",
    "new",
    "deploy",
    "publish",
    "push",
    "pull",
    "fetch",
    "clone",
    "install",
    "init",
    "login",
    "logout",
    "set",
    "update",
    "upgrade",
    "edit",
    "write",
    "commit",
    "merge",
    "rebase",
    "revert",
    "restore",
    "move",
    "mv",
    "rename",
    "run",
    "exec",
    "start",
    "stop",
    "restart",
    "serve",
    "send",
    "upload",
    "download",
    "import",
    "sync",
    "checkout",
    "switch",
    "link",
    "unlink",
    "open",
    "enable",
    "disable",
    "register",
    "deregister",
    "unregister",
    "associate",
    "disassociate",
    "attach",
    "detach",
    "put",
    "modify",
    "cancel",
    "invoke",
    "execute",
    "submit",
    "authorize",
    "grant",
    "reboot",
    "replace",
];

/// Framework commands that are not the tool's own.
const FRAMEWORK_COMMANDS: &[&str] = &["help", "completion", "completions"];

/// What a command's name says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    Framework,
    Destructive,
    Mutating,
    Read,
    /// Nothing: maybe a group (`projects`) whose subcommands say more.
    Other,
}

/// oclif's `apps:create` is classified by its last segment, the verb.
pub(super) fn classify(name: &str) -> Class {
    let name = name.rsplit(':').next().unwrap_or(name);
    if FRAMEWORK_COMMANDS.contains(&name) {
        Class::Framework
    } else if matches_verb(name, DESTRUCTIVE_VERBS) {
        Class::Destructive
    } else if matches_verb(name, MUTATING_VERBS)
        || crate::init::saving::writes_by_name(name).is_some()
    {
        Class::Mutating
    } else if matches_verb(name, READ_VERBS) {
        Class::Read
    } else {
        Class::Other
    }
}

/// `name` is one of `verbs`, or starts with one and a separator (`show-branch`).
fn matches_verb(name: &str, verbs: &[&str]) -> bool {
    let name = name.to_ascii_lowercase();
    verbs.iter().any(|verb| {
        name == *verb
            || name
                .strip_prefix(verb)
                .is_some_and(|rest| rest.starts_with('-') || rest.starts_with('_'))
    })
}
